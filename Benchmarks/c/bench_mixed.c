/* The mixed-value workloads of bench_c (issue #12 point 8): the Larder C API against raw LMDB.
 *
 * MIXED_N objects of one class, ids 1...MIXED_N: an int primary key "id" and a mixed
 * property "value" (Realm's AnyRealmValue) holding, by id % 3,
 *   0  an int, id * 7;
 *   1  a string, "name-<id>" (formatted before the clock starts, in every implementation);
 *   2  a link to an earlier object of the class, 1 + a random draw below id - 1
 *      (xorshift64* with MIXED_SEED, one draw per link, in id order).
 *   mixed-insert  all MIXED_N objects in one write transaction, commit included;
 *   mixed-scan    one read transaction visiting every object and reading its mixed value:
 *                 an int is summed, a string's byte length is summed, and a link is
 *                 followed to read its target's id, which is summed. Every implementation
 *                 follows the link (the Swift API cannot name a target without reading its
 *                 primary key), except GRDB's, whose link column already holds the
 *                 target's id (see MixedBench.swift); n is objects visited.
 *
 * The raw-LMDB baseline uses the layout a careful C programmer would choose, storing
 * what Larder stores as bench.c's raw baseline does: a rows table keyed by the object
 * key (MDB_INTEGERKEY, 1...MIXED_N, MDB_APPEND) holding [id int64][type tag u8] and the
 * value inline: an int64, the string's bytes (its length is the row's rest), or a link as
 * (class u32, object key u64); a primary-key table mapping the big-endian, sign-flipped id
 * to the object key (MDB_NOOVERWRITE). The scan walks the rows with one cursor and does
 * one mdb_get per link followed. No backlink index (Larder keeps one for links held in
 * mixed values: deleting a target nulls them); a second line, impl=raw-lmdb+backlinks,
 * also keeps one: a table keyed by (target class, target key, origin class, origin key,
 * property), all big-endian, counting the links, one put per link as it is written (as
 * bench_collections.c's link-insert). The c-api line's vs_raw is against raw-lmdb, and
 * its vs_raw_backlinks against raw-lmdb+backlinks (LarderBench adds the same field to
 * the swift and grdb-record lines).
 * The c-api insert passes [id, value] to lar_obj_create (a link as the earlier object's
 * lar_obj, kept from its create); the scan reads the mixed value with lar_iter_next_batch
 * into bound lar_values, 64 objects a call, and lar_obj_get of the target's id per link.
 * Each measurement is the best of its repeats; the two implementations alternate, and
 * every insert run uses fresh files. */
#include "bench.h"

#include "larder.h"

#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIXED_N 200000
#define MIXED_SEED 0x3113EDull
#define MIXED_WRITE_REPEATS 3
#define MIXED_READ_REPEATS 10
#define MIXED_BATCH 64
#define RAW_CLASS 1u /* the class id the raw layout gives its one class */

enum { TAG_INT = 1, TAG_STRING = 2, TAG_LINK = 3 };

/* ---- the data ---- */

/* For id (1...MIXED_N): names[id - 1] ("name-<id>") when id % 3 == 1, target[id - 1] when id % 3 == 2. */
static char (*names)[16];
static uint8_t *name_len;
static uint64_t *target;
static int64_t expected_sum;

static int64_t int_of(uint64_t id)
{
    return (int64_t)id * 7;
}

static void mixed_plan(void)
{
    names = malloc(MIXED_N * sizeof *names);
    name_len = malloc(MIXED_N * sizeof *name_len);
    target = malloc(MIXED_N * sizeof *target);
    if (!names || !name_len || !target) die("mixed", "out of memory");
    bench_rng rng = bench_rng_seed(MIXED_SEED);
    expected_sum = 0;
    for (uint64_t id = 1; id <= MIXED_N; id++) {
        names[id - 1][0] = '\0';
        name_len[id - 1] = 0;
        target[id - 1] = 0;
        switch (id % 3) {
        case 0:
            expected_sum += int_of(id);
            break;
        case 1:
            name_len[id - 1] = (uint8_t)snprintf(names[id - 1], sizeof names[0], "name-%" PRIu64, id);
            expected_sum += name_len[id - 1];
            break;
        default:
            target[id - 1] = 1 + bench_rng_below(&rng, id - 1);
            expected_sum += (int64_t)target[id - 1];
            break;
        }
    }
}

/* ---- files ---- */

typedef struct mixed_files {
    MDB_env *raw;
    MDB_dbi rows, pk, backlinks;
    lar_env *env;
    lar_class cls;
    uint32_t id_prop, value_prop;
} mixed_files;

static void put_be32(uint32_t v, uint8_t *out)
{
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void mixed_open(mixed_files *f, const char *raw_path, const char *lar_path)
{
    remove_database(raw_path);
    f->raw = raw_env_open(raw_path);
    f->rows = raw_dbi(f->raw, "rows", MDB_INTEGERKEY);
    f->pk = raw_dbi(f->raw, "pk", 0);
    f->backlinks = raw_dbi(f->raw, "backlinks", 0);

    static const lar_property_def props[] = {
        {"id", LAR_TYPE_INT, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL, NULL},
        {"value", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, NULL, NULL},
    };
    static const lar_class_def cls = {"MixedItem", props, 2, 0};
    f->env = lar_open_fresh(lar_path, &cls, 1);
    LAR_CHECK(lar_class_find(f->env, "MixedItem", &f->cls));
    LAR_CHECK(lar_property_find(f->env, f->cls, "id", &f->id_prop));
    LAR_CHECK(lar_property_find(f->env, f->cls, "value", &f->value_prop));
}

static void mixed_close(mixed_files *f)
{
    if (f->raw) mdb_env_close(f->raw);
    if (f->env) LAR_CHECK(lar_env_close(f->env));
    memset(f, 0, sizeof *f);
}

/* ---- raw LMDB ---- */

/* Row: [id int64][tag u8][int64 | string bytes | class u32, key u64], native byte order. */
#define ROW_HEAD 9

static void raw_backlink_put(mixed_files *f, MDB_txn *txn, uint64_t to, uint64_t origin)
{
    uint8_t key[25];
    put_be32(RAW_CLASS, key);
    be64(to, key + 4);
    put_be32(RAW_CLASS, key + 12);
    be64(origin, key + 16);
    key[24] = 1; /* the property */
    uint32_t one = 1;
    MDB_val k = {sizeof key, key}, d = {sizeof one, &one};
    int rc = mdb_put(txn, f->backlinks, &k, &d, MDB_NOOVERWRITE);
    if (rc == MDB_KEYEXIST) { /* d holds the stored count (not here: one mixed link per object) */
        uint32_t count;
        memcpy(&count, d.mv_data, sizeof count);
        count++;
        MDB_val nd = {sizeof count, &count};
        rc = mdb_put(txn, f->backlinks, &k, &nd, 0);
    }
    MDB_CHECK(rc);
}

/* The object key of id is id: raw knows every key in advance. */
static uint64_t raw_mixed_insert(mixed_files *f, int backlinks)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, 0, &txn));
    uint8_t row[ROW_HEAD + 16];
    for (uint64_t key = 1; key <= MIXED_N; key++) {
        int64_t id = (int64_t)key;
        memcpy(row, &id, 8);
        size_t size;
        switch (key % 3) {
        case 0: {
            int64_t v = int_of(key);
            row[8] = TAG_INT;
            memcpy(row + ROW_HEAD, &v, 8);
            size = ROW_HEAD + 8;
            break;
        }
        case 1:
            row[8] = TAG_STRING;
            memcpy(row + ROW_HEAD, names[key - 1], name_len[key - 1]);
            size = ROW_HEAD + name_len[key - 1];
            break;
        default: {
            uint32_t cls = RAW_CLASS;
            row[8] = TAG_LINK;
            memcpy(row + ROW_HEAD, &cls, 4);
            memcpy(row + ROW_HEAD + 4, &target[key - 1], 8);
            size = ROW_HEAD + 12;
            if (backlinks) raw_backlink_put(f, txn, target[key - 1], key);
            break;
        }
        }
        MDB_val k = {sizeof key, &key}, d = {size, row};
        MDB_CHECK(mdb_put(txn, f->rows, &k, &d, MDB_APPEND));
        uint8_t pk[8];
        be64((uint64_t)id ^ (1ull << 63), pk);
        MDB_val pkk = {sizeof pk, pk}, pkd = {sizeof key, &key};
        MDB_CHECK(mdb_put(txn, f->pk, &pkk, &pkd, MDB_NOOVERWRITE));
    }
    MDB_CHECK(mdb_txn_commit(txn));
    return bench_now_ns() - start;
}

static uint64_t raw_mixed_scan(mixed_files *f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(f->raw, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, f->rows, &cursor));
    int64_t sum = 0;
    uint64_t count = 0;
    MDB_val k, d;
    int rc;
    for (rc = mdb_cursor_get(cursor, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &d, MDB_NEXT)) {
        const uint8_t *row = d.mv_data;
        if (d.mv_size < ROW_HEAD) die("raw mixed-scan", "bad row");
        switch (row[8]) {
        case TAG_INT: {
            int64_t v;
            memcpy(&v, row + ROW_HEAD, 8);
            sum += v;
            break;
        }
        case TAG_STRING:
            sum += (int64_t)(d.mv_size - ROW_HEAD);
            break;
        case TAG_LINK: {
            uint32_t cls;
            uint64_t key;
            memcpy(&cls, row + ROW_HEAD, 4);
            memcpy(&key, row + ROW_HEAD + 4, 8);
            if (cls != RAW_CLASS) die("raw mixed-scan", "a link to another class");
            MDB_val tk = {sizeof key, &key}, td;
            MDB_CHECK(mdb_get(txn, f->rows, &tk, &td));
            if (td.mv_size < ROW_HEAD) die("raw mixed-scan", "bad row");
            int64_t id;
            memcpy(&id, td.mv_data, 8);
            sum += id;
            break;
        }
        default:
            die("raw mixed-scan", "bad tag");
        }
        count++;
    }
    if (rc != MDB_NOTFOUND) die("raw mixed-scan", mdb_strerror(rc));
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw mixed-scan", sum, expected_sum, count, MIXED_N);
    return elapsed;
}

/* ---- the C API ---- */

static uint64_t capi_mixed_insert(mixed_files *f, lar_obj *objs)
{
    lar_value values[2];
    memset(values, 0, sizeof values);
    values[f->id_prop].type = LAR_TYPE_INT;
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_WRITE, &txn));
    for (uint64_t id = 1; id <= MIXED_N; id++) {
        values[f->id_prop].as.integer = (int64_t)id;
        lar_value *v = &values[f->value_prop];
        switch (id % 3) {
        case 0:
            v->type = LAR_TYPE_INT;
            v->as.integer = int_of(id);
            break;
        case 1:
            v->type = LAR_TYPE_STRING;
            v->as.string.data = names[id - 1];
            v->as.string.size = name_len[id - 1];
            break;
        default:
            v->type = LAR_TYPE_LINK;
            v->as.link = objs[target[id - 1] - 1];
            break;
        }
        LAR_CHECK(lar_obj_create(txn, f->cls, values, 2, &objs[id - 1]));
    }
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);
    return elapsed;
}

static uint64_t capi_mixed_scan(mixed_files *f)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    lar_iter *iter;
    LAR_CHECK(lar_txn_begin(f->env, LAR_TXN_READ, &txn));
    LAR_CHECK(lar_iter_open(txn, f->cls, &iter));
    lar_value rows[MIXED_BATCH];
    LAR_CHECK(lar_iter_bind_value(iter, f->value_prop, &rows[0]));
    int64_t sum = 0;
    uint64_t count = 0;
    size_t got;
    int rc;
    while ((rc = lar_iter_next_batch(iter, NULL, MIXED_BATCH, sizeof rows[0], &got)) == LAR_OK) {
        for (size_t i = 0; i < got; i++) {
            const lar_value *v = &rows[i];
            switch (v->type) {
            case LAR_TYPE_INT:
                sum += v->as.integer;
                break;
            case LAR_TYPE_STRING:
                sum += (int64_t)v->as.string.size;
                break;
            case LAR_TYPE_LINK: {
                lar_value id;
                LAR_CHECK(lar_obj_get(txn, v->as.link, f->id_prop, &id));
                sum += id.as.integer;
                break;
            }
            default:
                die("c-api mixed-scan", "a value of an unexpected type");
            }
        }
        count += got;
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_iter_next_batch", rc);
    lar_iter_close(iter);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api mixed-scan", sum, expected_sum, count, MIXED_N);
    return elapsed;
}

/* ---- the run ---- */

void bench_mixed(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-mixed.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-mixed.larder", dir);
    mixed_plan();
    lar_obj *objs = malloc(MIXED_N * sizeof *objs);
    if (!objs) die("mixed", "out of memory");
    mixed_files f = {0};
    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX, best_raw_backlinks = UINT64_MAX;
    for (int rep = 0; rep < MIXED_WRITE_REPEATS; rep++) {
        mixed_close(&f);
        mixed_open(&f, raw_path, lar_path);
        best_raw_backlinks = min_u64(best_raw_backlinks, raw_mixed_insert(&f, 1));
        mixed_close(&f); /* fresh files: the raw scan below reads the plain raw insert's */
        mixed_open(&f, raw_path, lar_path);
        best_raw = min_u64(best_raw, raw_mixed_insert(&f, 0));
        best_capi = min_u64(best_capi, capi_mixed_insert(&f, objs));
    }
    report_n("mixed-insert", "raw-lmdb", MIXED_N, best_raw, best_raw);
    report_n("mixed-insert", "raw-lmdb+backlinks", MIXED_N, best_raw_backlinks, best_raw);
    report_n_vs("mixed-insert", "c-api", MIXED_N, best_capi, best_raw, "raw_backlinks", best_raw_backlinks);

    best_raw = best_capi = UINT64_MAX;
    for (int rep = 0; rep < MIXED_READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_mixed_scan(&f));
        best_capi = min_u64(best_capi, capi_mixed_scan(&f));
    }
    report_n("mixed-scan", "raw-lmdb", MIXED_N, best_raw, best_raw);
    report_n("mixed-scan", "c-api", MIXED_N, best_capi, best_raw);
    mixed_close(&f);
    free(objs);
    free(names);
    free(name_len);
    free(target);
}
