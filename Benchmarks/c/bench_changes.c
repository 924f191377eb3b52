/* The change-log workloads of bench_c (section "changes").
 *
 *   insert-logged     bench.c's insert (N objects, one write) with the change log, which
 *                     is always on, beside raw LMDB and beside the same insert on a file
 *                     whose environment has the log switched off (c-api-unlogged, an
 *                     internal switch only this bench uses): vs_unlogged is the log's cost.
 *   changeset-sorted  a result of Items {id, score, tag} filtered by tag != 0 (9 in 10)
 *                     and sorted by score, at n = 20,000 and 200,000 objects; each step
 *                     commits one change to one object (untimed) and times bringing the
 *                     result to the new version with its change set. c-api:
 *                     lar_results_update() from the old snapshot (the object's tag
 *                     changes: it stays in place, a modification). raw-lmdb: what a
 *                     program on plain LMDB does, scanning the table again, filtering,
 *                     sorting and diffing the keys with the old ones.
 *                     changeset-sorted-move: the same with the object's score changed,
 *                     so it moves (the keys between its two places shift).
 *                     ns_per_op is per change set (c-api: the median of 300; raw-lmdb:
 *                     the mean of 5); n is the result's class size.
 *                     changeset-sorted-first: the first of those change sets alone, which
 *                     also puts the result's keys in blocks and reads every object's sort
 *                     keys once to hold them beside its key (results_update.c).
 *   set-insert-logged N ints inserted into a Set<Int> and N keys put into a [String: Int]
 *                     of one object that exists before the write (so its element changes
 *                     are logged), beside the same on a file with the log off.
 *   changeset-set     a Set<Int> of n = 20,000 and 200,000 elements; each step inserts one
 *                     element after the others (untimed) and times lar_set_changeset()
 *                     between the two versions: c-api with the changes read from the log
 *                     (lar_changes_read() timed too), c-api-snapshots without them (both
 *                     sets walked). ns_per_op is per change set.
 *                     changeset-set-middle: the same removing an element from the middle,
 *                     the farthest from both ends (the log's positions walk the blocks
 *                     from both ends). */
#include "bench.h"

#include "kv/kv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_STEPS 300   /* change sets timed per size (c-api) */
#define RAW_STEPS 5    /* the re-run baseline is slow */

static void unlog(lar_env *env)
{
    env->has_history = false; /* what a file without a log table has: nothing is recorded */
}

/* ---- the Larder side ---- */

typedef struct cs_db {
    lar_env *env;
    lar_class cls;
    uint32_t id, score, tag;
    lar_query *query;
} cs_db;

static int64_t score_of(int64_t id, size_t n)
{
    return (int64_t)(((uint64_t)id * 7919u) % n);
}

static void cs_open(cs_db *db, const char *path, size_t n)
{
    lar_property_def props[] = {
        {"id", LAR_TYPE_INT, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL, NULL},
        {"score", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"tag", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    };
    lar_class_def cls = {"Item", props, 3, 0};
    db->env = lar_open_fresh(path, &cls, 1);
    LAR_CHECK(lar_class_find(db->env, "Item", &db->cls));
    LAR_CHECK(lar_property_find(db->env, db->cls, "id", &db->id));
    LAR_CHECK(lar_property_find(db->env, db->cls, "score", &db->score));
    LAR_CHECK(lar_property_find(db->env, db->cls, "tag", &db->tag));
    LAR_CHECK(lar_query_parse(db->env, db->cls, "tag != 0", &db->query));
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
    lar_value values[3];
    for (int i = 0; i < 3; i++) values[i].type = LAR_TYPE_INT;
    for (size_t id = 0; id < n; id++) {
        values[db->id].as.integer = (int64_t)id;
        values[db->score].as.integer = score_of((int64_t)id, n);
        values[db->tag].as.integer = (int64_t)(id % 10);
        LAR_CHECK(lar_obj_create(txn, db->cls, values, 3, NULL));
    }
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
}

/* One change to the object with a random id (tag 1..9 kept non-zero, or a new score). */
static void cs_change(cs_db *db, bench_rng *rng, size_t n, bool move)
{
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
    lar_value key = {.type = LAR_TYPE_INT, .as.integer = (int64_t)bench_rng_below(rng, n / 10) * 10 + 5};
    lar_obj obj;
    LAR_CHECK(lar_obj_find(txn, db->cls, &key, &obj));
    lar_value value = {.type = LAR_TYPE_INT,
                       .as.integer = move ? (int64_t)bench_rng_below(rng, n) : 1 + (int64_t)bench_rng_below(rng, 9)};
    LAR_CHECK(lar_obj_set(txn, obj, move ? db->score : db->tag, &value));
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nanoseconds per change set: the median of CS_STEPS steps (a mean on a shared machine
 * takes in whatever preemption falls inside a step of microseconds); *first: the first's. */
static uint64_t capi_changesets(cs_db *db, size_t n, bool move, uint64_t *first)
{
    static const lar_sort_descriptor by_score = {"score", 1};
    bench_rng rng = bench_rng_seed(0xC4A9u + n + move);
    lar_txn *old;
    lar_results *results;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &old));
    LAR_CHECK(lar_query_run(old, db->query, &results));
    LAR_CHECK(lar_results_sort(old, results, &by_score, 1));
    uint64_t times[CS_STEPS], checked = 0;
    for (int step = 0; step < CS_STEPS; step++) {
        cs_change(db, &rng, n, move);
        lar_txn *now;
        LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &now));
        lar_changeset *cs;
        uint64_t start = bench_now_ns();
        LAR_CHECK(lar_results_update(old, now, db->query, &by_score, 1, results, &cs));
        times[step] = bench_now_ns() - start;
        const size_t *indices;
        size_t count;
        LAR_CHECK(lar_changeset_get(cs, move ? LAR_CHANGESET_INSERTIONS : LAR_CHANGESET_MODIFICATIONS, &indices,
                                    &count));
        checked += count;
        lar_changeset_free(cs);
        lar_txn_free(old);
        old = now;
    }
    size_t count;
    LAR_CHECK(lar_results_count(results, &count));
    if (count != n - n / 10 || checked < (move ? 1 : CS_STEPS))
        die("changeset-sorted", "the result or its change sets are not what the changes make");
    lar_txn_free(old);
    lar_results_free(results);
    *first = times[0];
    qsort(times, CS_STEPS, sizeof *times, by_value);
    return times[CS_STEPS / 2];
}

/* ---- the plain LMDB side: scan, filter, sort, diff ---- */

typedef struct raw_item {
    int64_t score;
    uint64_t key;
} raw_item;

static int by_score_then_key(const void *a, const void *b)
{
    const raw_item *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int by_key(const void *a, const void *b)
{
    const raw_item *x = a, *y = b; /* score holds a position here */
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The sorted keys of the rows whose tag is not 0; *count of them. */
static uint64_t *raw_run(MDB_env *env, MDB_dbi rows, size_t n, size_t *count)
{
    raw_item *items = malloc(n * sizeof *items);
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!items || !keys) die("changeset-sorted", "out of memory");
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, rows, &cursor));
    MDB_val k, v;
    size_t used = 0;
    for (int rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        int64_t row[2];
        memcpy(row, v.mv_data, sizeof row);
        if (row[1] == 0) continue;
        raw_item item = {row[0], 0};
        memcpy(&item.key, k.mv_data, sizeof item.key);
        items[used++] = item;
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    qsort(items, used, sizeof *items, by_score_then_key);
    for (size_t i = 0; i < used; i++) keys[i] = items[i].key;
    free(items);
    *count = used;
    return keys;
}

/* How many of old's keys are not at the same position in now: the diff, by key. */
static size_t raw_diff(const uint64_t *old, size_t old_count, const uint64_t *now, size_t new_count)
{
    raw_item *a = malloc((old_count + 1) * sizeof *a), *b = malloc((new_count + 1) * sizeof *b);
    if (!a || !b) die("changeset-sorted", "out of memory");
    for (size_t i = 0; i < old_count; i++) a[i] = (raw_item){(int64_t)i, old[i]};
    for (size_t i = 0; i < new_count; i++) b[i] = (raw_item){(int64_t)i, now[i]};
    qsort(a, old_count, sizeof *a, by_key);
    qsort(b, new_count, sizeof *b, by_key);
    size_t changed = 0, i = 0, j = 0;
    while (i < old_count || j < new_count) {
        if (j == new_count || (i < old_count && a[i].key < b[j].key)) changed++, i++;
        else if (i == old_count || b[j].key < a[i].key) changed++, j++;
        else changed += a[i++].score != b[j++].score;
    }
    free(a);
    free(b);
    return changed;
}

static uint64_t raw_changesets(const char *path, size_t n, bool move)
{
    remove_database(path);
    MDB_env *env = raw_env_open(path);
    MDB_dbi rows = raw_dbi(env, "rows", MDB_INTEGERKEY);
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(env, NULL, 0, &txn));
    for (uint64_t key = 1; key <= n; key++) {
        int64_t row[2] = {score_of((int64_t)key - 1, n), (int64_t)((key - 1) % 10)};
        MDB_val k = {sizeof key, &key}, v = {sizeof row, row};
        MDB_CHECK(mdb_put(txn, rows, &k, &v, MDB_APPEND));
    }
    MDB_CHECK(mdb_txn_commit(txn));
    bench_rng rng = bench_rng_seed(0xC4A9u + n + move);
    size_t old_count;
    uint64_t *old = raw_run(env, rows, n, &old_count), total = 0;
    for (int step = 0; step < RAW_STEPS; step++) {
        MDB_CHECK(mdb_txn_begin(env, NULL, 0, &txn));
        uint64_t key = bench_rng_below(&rng, n / 10) * 10 + 6; /* id * 10 + 5, keys from 1 */
        int64_t row[2] = {move ? (int64_t)bench_rng_below(&rng, n) : score_of((int64_t)key - 1, n),
                          move ? 5 : 1 + (int64_t)bench_rng_below(&rng, 9)};
        MDB_val k = {sizeof key, &key}, v = {sizeof row, row};
        MDB_CHECK(mdb_put(txn, rows, &k, &v, 0));
        MDB_CHECK(mdb_txn_commit(txn));
        uint64_t start = bench_now_ns();
        size_t new_count;
        uint64_t *now = raw_run(env, rows, n, &new_count);
        size_t changed = raw_diff(old, old_count, now, new_count);
        total += bench_now_ns() - start;
        if (new_count != old_count || (!move && changed)) die("changeset-sorted raw", "unexpected diff");
        free(old);
        old = now;
    }
    free(old);
    mdb_env_close(env);
    return total / RAW_STEPS;
}

/* ---- sets and maps ---- */

#define ELEMENTS 50000

typedef struct keyed_db {
    lar_env *env;
    lar_obj owner;
    uint32_t set, map;
} keyed_db;

static void keyed_open(keyed_db *db, const char *path)
{
    lar_property_def props[] = {
        {"set", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"map", LAR_TYPE_INT, LAR_COLLECTION_MAP, 0, NULL, NULL},
    };
    lar_class_def cls = {"Owner", props, 2, 0};
    db->env = lar_open_fresh(path, &cls, 1);
    lar_class owner;
    LAR_CHECK(lar_class_find(db->env, "Owner", &owner));
    LAR_CHECK(lar_property_find(db->env, owner, "set", &db->set));
    LAR_CHECK(lar_property_find(db->env, owner, "map", &db->map));
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
    LAR_CHECK(lar_obj_create(txn, owner, NULL, 0, &db->owner));
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
}

static void keyed_close(keyed_db *db)
{
    LAR_CHECK(lar_env_close(db->env));
}

/* Inserts the elements in the order of a multiplicative walk (not ascending). */
static uint64_t keyed_insert(keyed_db *db, size_t n, size_t first)
{
    lar_txn *txn;
    uint64_t start = bench_now_ns();
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
    for (size_t i = 0; i < n; i++) {
        lar_value v = {.type = LAR_TYPE_INT, .as.integer = (int64_t)(first + (i * 7919u) % n)};
        char name[24];
        int size = snprintf(name, sizeof name, "k%lld", (long long)v.as.integer);
        lar_string key = {name, (size_t)size};
        LAR_CHECK(lar_set_insert(txn, db->owner, db->set, &v, NULL));
        LAR_CHECK(lar_map_put(txn, db->owner, db->map, &key, &v));
    }
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    return bench_now_ns() - start;
}

static void bench_set_insert_logged(const char *dir)
{
    char path[4200], off_path[4200];
    snprintf(path, sizeof path, "%s/keyed-logged.larder", dir);
    snprintf(off_path, sizeof off_path, "%s/keyed-unlogged.larder", dir);
    uint64_t best = UINT64_MAX, best_off = UINT64_MAX;
    for (int rep = 0; rep < 3; rep++) {
        keyed_db db, off;
        keyed_open(&db, path);
        keyed_open(&off, off_path);
        unlog(off.env);
        uint64_t logged = keyed_insert(&db, ELEMENTS, 0), unlogged = keyed_insert(&off, ELEMENTS, 0);
        best = logged < best ? logged : best;
        best_off = unlogged < best_off ? unlogged : best_off;
        keyed_close(&db);
        keyed_close(&off);
    }
    report_n_vs("set-insert-logged", "c-api", ELEMENTS, best, best_off, "unlogged", best_off);
    report_n("set-insert-logged", "c-api-unlogged", ELEMENTS, best_off, best_off);
}

/* Nanoseconds per set change set over CS_STEPS steps, with the log (changes) or not;
 * each step inserts one element after the others, or removes one from the middle. */
static uint64_t set_changesets(keyed_db *db, size_t n, bool with_log, bool middle)
{
    uint64_t total = 0;
    for (int step = 0; step < CS_STEPS; step++) {
        lar_txn *old, *now, *txn;
        LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &old));
        LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
        lar_value v = {.type = LAR_TYPE_INT, .as.integer = (int64_t)(n + (size_t)step * 2 + with_log)};
        if (middle) v.as.integer = (int64_t)(n / 2 + (size_t)step * 2 + with_log);
        LAR_CHECK(middle ? lar_set_remove(txn, db->owner, db->set, &v, NULL)
                         : lar_set_insert(txn, db->owner, db->set, &v, NULL));
        LAR_CHECK(lar_txn_commit(txn));
        lar_txn_free(txn);
        LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &now));
        uint64_t from, start = bench_now_ns();
        lar_changes *changes = NULL;
        LAR_CHECK(lar_txn_version(old, &from));
        if (with_log) LAR_CHECK(lar_changes_read(now, from, &changes));
        lar_changeset *cs;
        LAR_CHECK(lar_set_changeset(old, now, changes, db->owner, db->set, &cs));
        total += bench_now_ns() - start;
        const size_t *indices;
        size_t count;
        LAR_CHECK(lar_changeset_get(cs, middle ? LAR_CHANGESET_DELETIONS : LAR_CHANGESET_INSERTIONS, &indices, &count));
        if (count != 1) die("changeset-set", "the change set is not the one insertion made");
        lar_changeset_free(cs);
        lar_changes_free(changes);
        lar_txn_free(old);
        lar_txn_free(now);
    }
    return total / CS_STEPS;
}

static void bench_set_changesets(const char *dir)
{
    static const size_t sizes[] = {20000, 200000};
    for (int middle = 0; middle < 2; middle++) {
        const char *workload = middle ? "changeset-set-middle" : "changeset-set";
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s];
            char path[4200];
            snprintf(path, sizeof path, "%s/changeset-set.larder", dir);
            keyed_db db;
            keyed_open(&db, path);
            keyed_insert(&db, n, 0);
            uint64_t snapshots = set_changesets(&db, n, false, middle), logged = set_changesets(&db, n, true, middle);
            keyed_close(&db);
            /* report_n divides by n: scaled so that ns_per_op is per change set. */
            report_n(workload, "c-api-snapshots", n, snapshots * n, snapshots * n);
            report_n(workload, "c-api", n, logged * n, snapshots * n);
        }
    }
}

/* Section changes-sorted: only changeset-sorted and changeset-sorted-move. */
void bench_changes_sorted(const char *dir)
{
    static const size_t sizes[] = {20000, 200000};
    for (int move = 0; move < 2; move++) {
        const char *workload = move ? "changeset-sorted-move" : "changeset-sorted";
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s];
            char path[4200];
            snprintf(path, sizeof path, "%s/changeset-raw.lmdb", dir);
            uint64_t raw = raw_changesets(path, n, move);
            snprintf(path, sizeof path, "%s/changeset.larder", dir);
            cs_db db;
            cs_open(&db, path, n);
            uint64_t first, capi = capi_changesets(&db, n, move, &first);
            lar_query_free(db.query);
            LAR_CHECK(lar_env_close(db.env));
            /* report_n divides by n: scaled so that ns_per_op is per change set. */
            report_n(workload, "raw-lmdb", n, raw * n, raw * n);
            report_n(workload, "c-api", n, capi * n, raw * n);
            if (!move) report_n("changeset-sorted-first", "c-api", n, first * n, raw * n);
        }
    }
}

void bench_changes(const char *dir)
{
    bench_insert_logged(dir, unlog);
    bench_set_insert_logged(dir);
    bench_set_changesets(dir);
    bench_changes_sorted(dir);
}
