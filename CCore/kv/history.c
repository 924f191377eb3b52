/* The change log's table, and the two versions trimming and watching need: the oldest
 * snapshot a reader still holds, and the file's last commit. What the log holds is the
 * changes layer's (CCore/changes/); this file only knows where it lives.
 *
 * No format bump: a file without the table (written before it existed) simply has
 * no history before its first writable open with this library, and a library that
 * predates the log ignores the table (its commits then leave gaps, which readers
 * cannot detect: mixing such libraries on one file loses notifications, not data). */
#include "kv/kv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tries to open the table in a read transaction (a read commit keeps the handle). */
static int open_existing(lar_env *env, bool *found)
{
    MDB_txn *txn;
    int rc = env_begin_private(env, MDB_RDONLY, &txn);
    if (rc) return rc;
    rc = mdb_dbi_open(txn, HISTORY_TABLE, MDB_INTEGERKEY, &env->history_dbi);
    *found = !rc;
    if (rc == MDB_NOTFOUND) rc = 0;
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

/* Creates the table, its floor the version of the commit that creates it. */
static int create(lar_env *env)
{
    MDB_txn *txn;
    int rc = env_begin_private(env, 0, &txn);
    if (rc) return rc;
    rc = mdb_dbi_open(txn, HISTORY_TABLE, MDB_CREATE | MDB_INTEGERKEY, &env->history_dbi);
    uint64_t floor_key = HISTORY_FLOOR_KEY, floor = (uint64_t)mdb_txn_id(txn);
    MDB_val key = {sizeof floor_key, &floor_key}, data = {sizeof floor, &floor};
    if (!rc) rc = mdb_put(txn, env->history_dbi, &key, &data, MDB_NOOVERWRITE); /* another opener won */
    if (rc == MDB_KEYEXIST) rc = 0;
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

int env_attach_history(lar_env *env, bool writable)
{
    bool found = false;
    int rc = open_existing(env, &found);
    if (!rc && !found && writable) {
        rc = create(env);
        found = !rc;
    }
    if (rc == MDB_MAP_FULL) return LAR_OK; /* no room even for that: the log starts at a later open */
    if (rc) return lar_fail_mdb(rc, "cannot open the change log");
    env->has_history = found;
    return LAR_OK;
}

typedef struct reader_scan {
    uint64_t oldest;
    bool any;
} reader_scan;

/* mdb_reader_list's lines: "pid thread txnid", txnid "-" for a slot with no snapshot. */
static int note_reader(const char *line, void *context)
{
    reader_scan *scan = context;
    long pid;
    unsigned long thread;
    char txnid[32];
    if (sscanf(line, "%ld %lx %31s", &pid, &thread, txnid) != 3) return 0; /* the heading */
    char *end;
    unsigned long long id = strtoull(txnid, &end, 10);
    if (end == txnid || *end) return 0;
    if (!scan->any || id < scan->oldest) scan->oldest = id;
    scan->any = true;
    return 0;
}

int kv_oldest_reader(lar_env *env, uint64_t *out, bool *any)
{
    reader_scan scan = {0, false};
    int rc = mdb_reader_list(env->mdb, note_reader, &scan);
    if (rc < 0) return lar_fail_mdb(rc, "cannot list the readers");
    *out = scan.oldest;
    *any = scan.any;
    return LAR_OK;
}

int kv_env_written_version(lar_env *env, uint64_t *out)
{
    MDB_envinfo info;
    int rc = mdb_env_info(env->mdb, &info);
    if (rc) return lar_fail_mdb(rc, "cannot read the file's version");
    *out = (uint64_t)info.me_last_txnid;
    return LAR_OK;
}

/* The version a new reader sees, from a read transaction rather than the newest meta
 * page (mdb_env_info): a commit writes its meta page before it publishes its version to
 * new readers, so a version read from the page may not be readable yet. */
int kv_env_version(lar_env *env, uint64_t *out)
{
    lar_txn *txn;
    int err = lar_txn_begin(env, 0, &txn);
    if (err) return err;
    err = lar_txn_version(txn, out);
    lar_txn_free(txn);
    return err;
}
