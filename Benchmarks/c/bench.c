/* bench_c <dir>: the Larder C API against raw LMDB doing the same puts and gets.
 *
 * N objects of one class: an int primary key "id" and ten ints "v0".."v9",
 * with v_j = id * 10 + j. Three workloads, each through both implementations:
 *   insert  all N objects in one write transaction, the commit included;
 *   scan    one read transaction visiting every object and reading its ten ints
 *           (c-api: batches of rows of bound variables; c-api-step: bound
 *           variables, one object per call; c-api-values: tagged lar_values);
 *   lookup  N primary-key lookups in a shuffled (fixed-seed) order in one read
 *           transaction, each reading v3; raw-lmdb-direct is the floor, one mdb_get
 *           of a row keyed by the id itself (vs_direct on the lookup lines).
 * Raw LMDB stores what Larder stores: a table keyed by the object key
 * (MDB_INTEGERKEY, written with MDB_APPEND) holding a row of the 11 ints, and a
 * primary-key table mapping the big-endian, sign-flipped id to the object key
 * (written with MDB_NOOVERWRITE).
 *
 * Sync: both use the default, durable sync (a write commit fsyncs). Insert has
 * one commit for N objects, so the fsync is amortized; reads never sync.
 * Map: both map 1 GiB up front, so neither grows its map during a run.
 * Each measurement is the best of REPEATS runs (SCAN_REPEATS for the scan, which
 * takes milliseconds: on a shared machine a few runs can all land in someone
 * else's burst); the two implementations alternate, and every insert run uses
 * fresh files.
 * Then the collection workloads of bench_collections.c (lists, links, maps, sets), the
 * mixed-value ones of bench_mixed.c, the embedded-object ones of bench_embedded.c, the
 * query ones of bench_query.c and the change-log ones of bench_changes.c.
 * Prints one "BENCH ..." line per workload and implementation, also written to
 * <dir>/c-results.txt. Exits 1 on any error. */
#include "bench.h"

#include "larder.h"

#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 200000
#define PROPS 10 /* v0..v9; every object also has its id */
#define REPEATS 3
#define SCAN_REPEATS 15
#define MAP_SIZE ((size_t)1 << 30)
#define LOOKUP_SEED 0x1A2DE2ull
#define LOOKUP_PROP 3 /* v3 */

/* ---- errors ---- */

_Noreturn void die(const char *what, const char *detail)
{
    fprintf(stderr, "bench_c: %s: %s\n", what, detail);
    exit(1);
}

_Noreturn void lar_die(const char *what, int rc)
{
    fprintf(stderr, "bench_c: %s failed: %d (%s): %s\n", what, rc, lar_strerror(rc),
            lar_error_last()->message);
    exit(1);
}

/* ---- expected results ---- */

static int64_t value_of(int64_t id, int j)
{
    return id * 10 + j;
}

/* Ids are 1...N; the sum of v0..v9 over all objects, and of v3. */
static int64_t expected_scan_sum(void)
{
    int64_t sum = 0;
    for (int64_t id = 1; id <= N; id++)
        for (int j = 0; j < PROPS; j++) sum += value_of(id, j);
    return sum;
}

static int64_t expected_lookup_sum(void)
{
    int64_t sum = 0;
    for (int64_t id = 1; id <= N; id++) sum += value_of(id, LOOKUP_PROP);
    return sum;
}

void check_result(const char *what, int64_t got_sum, int64_t want_sum, uint64_t got_count, uint64_t want_count)
{
    if (got_sum == want_sum && got_count == want_count) return;
    char detail[200];
    snprintf(detail, sizeof detail, "count %" PRIu64 ", sum %" PRId64 "; expected %" PRIu64 ", %" PRId64,
             got_count, got_sum, want_count, want_sum);
    die(what, detail);
}

MDB_env *raw_env_open(const char *path)
{
    MDB_env *env;
    MDB_CHECK(mdb_env_create(&env));
    MDB_CHECK(mdb_env_set_maxdbs(env, 8));
    MDB_CHECK(mdb_env_set_mapsize(env, MAP_SIZE));
    MDB_CHECK(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_NOTLS, 0644));
    return env;
}

MDB_dbi raw_dbi(MDB_env *env, const char *name, unsigned int flags)
{
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_CHECK(mdb_txn_begin(env, NULL, 0, &txn));
    MDB_CHECK(mdb_dbi_open(txn, name, MDB_CREATE | flags, &dbi));
    MDB_CHECK(mdb_txn_commit(txn));
    return dbi;
}

lar_env *lar_open_fresh(const char *path, const lar_class_def *classes, size_t count)
{
    remove_database(path);
    lar_env_options options;
    LAR_CHECK(lar_env_options_init(&options));
    options.initial_map_size = MAP_SIZE;
    options.flags = 0; /* durable sync, as raw LMDB's default */
    lar_env *env;
    LAR_CHECK(lar_env_open(path, &options, &env));
    LAR_CHECK(lar_schema_apply(env, classes, count, 1));
    return env;
}

/* ---- files ---- */

static void make_dirs(const char *path)
{
    char buffer[4096];
    if (strlen(path) >= sizeof buffer) die(path, "path too long");
    strcpy(buffer, path);
    for (char *p = buffer + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(buffer, 0755) != 0 && errno != EEXIST) die(buffer, strerror(errno));
        *p = saved;
        if (!saved) break;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) die(path, "not a directory");
}

static void remove_file(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT) die(path, strerror(errno));
}

/* Removes a database file and its "-lock" file. */
void remove_database(const char *path)
{
    char lock[4200];
    snprintf(lock, sizeof lock, "%s-lock", path);
    remove_file(path);
    remove_file(lock);
}

/* ---- raw LMDB ---- */

typedef struct raw_db {
    MDB_env *env;
    MDB_dbi rows, pk;
    MDB_dbi direct; /* rows keyed by the id itself: the one-probe lookup baseline */
} raw_db;

#define ROW_INTS (1 + PROPS)

static void raw_open(raw_db *db, const char *path)
{
    db->env = raw_env_open(path);
    db->rows = raw_dbi(db->env, "rows", MDB_INTEGERKEY);
    db->pk = raw_dbi(db->env, "pk", 0);
    db->direct = raw_dbi(db->env, "direct", MDB_INTEGERKEY);
}

static void raw_close(raw_db *db)
{
    mdb_env_close(db->env);
    db->env = NULL;
}

/* The primary-key encoding Larder uses for ints: big-endian with the sign bit flipped. */
static void pk_encode(int64_t id, uint8_t out[8])
{
    uint64_t v = (uint64_t)id ^ (1ull << 63);
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t raw_insert(raw_db *db)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, 0, &txn));
    for (int64_t id = 1; id <= N; id++) {
        uint64_t objkey = (uint64_t)id; /* Larder's object keys count from 1 too */
        uint8_t pk_bytes[8];
        pk_encode(id, pk_bytes);
        MDB_val pk = {sizeof pk_bytes, pk_bytes}, target = {sizeof objkey, &objkey};
        MDB_CHECK(mdb_put(txn, db->pk, &pk, &target, MDB_NOOVERWRITE));
        int64_t row[ROW_INTS];
        row[0] = id;
        for (int j = 0; j < PROPS; j++) row[1 + j] = value_of(id, j);
        MDB_val key = {sizeof objkey, &objkey}, data = {sizeof row, row};
        MDB_CHECK(mdb_put(txn, db->rows, &key, &data, MDB_APPEND));
    }
    MDB_CHECK(mdb_txn_commit(txn));
    return bench_now_ns() - start;
}

static uint64_t raw_scan(raw_db *db)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, db->rows, &cursor));
    int64_t sum = 0;
    uint64_t count = 0;
    MDB_val key, data;
    int rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST);
    for (; rc == 0; rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT)) {
        if (data.mv_size != ROW_INTS * sizeof(int64_t)) die("raw scan", "bad row size");
        const uint8_t *bytes = data.mv_data;
        for (int j = 0; j < PROPS; j++) {
            int64_t v;
            memcpy(&v, bytes + (1 + j) * sizeof v, sizeof v);
            sum += v;
        }
        count++;
    }
    if (rc != MDB_NOTFOUND) die("raw scan", mdb_strerror(rc));
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw scan", sum, expected_scan_sum(), count, N);
    return elapsed;
}

static uint64_t raw_lookup(raw_db *db, const int64_t *order)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    int64_t sum = 0;
    for (size_t i = 0; i < N; i++) {
        uint8_t pk_bytes[8];
        pk_encode(order[i], pk_bytes);
        MDB_val pk = {sizeof pk_bytes, pk_bytes}, target, row;
        MDB_CHECK(mdb_get(txn, db->pk, &pk, &target));
        if (target.mv_size != sizeof(uint64_t)) die("raw lookup", "bad primary-key entry");
        MDB_val key = {sizeof(uint64_t), target.mv_data};
        MDB_CHECK(mdb_get(txn, db->rows, &key, &row));
        if (row.mv_size != ROW_INTS * sizeof(int64_t)) die("raw lookup", "bad row size");
        int64_t v;
        memcpy(&v, (const uint8_t *)row.mv_data + (1 + LOOKUP_PROP) * sizeof v, sizeof v);
        sum += v;
    }
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw lookup", sum, expected_lookup_sum(), N, N);
    return elapsed;
}

/* The floor of a primary-key lookup: the row stored under the id itself, so one
 * mdb_get finds it (no primary-key table). Filled untimed, once, for the lookups. */
static void raw_direct_fill(raw_db *db)
{
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, 0, &txn));
    for (int64_t id = 1; id <= N; id++) {
        int64_t row[ROW_INTS];
        row[0] = id;
        for (int j = 0; j < PROPS; j++) row[1 + j] = value_of(id, j);
        MDB_val key = {sizeof id, &id}, data = {sizeof row, row};
        MDB_CHECK(mdb_put(txn, db->direct, &key, &data, MDB_APPEND));
    }
    MDB_CHECK(mdb_txn_commit(txn));
}

static uint64_t raw_direct_lookup(raw_db *db, const int64_t *order)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    int64_t sum = 0;
    for (size_t i = 0; i < N; i++) {
        MDB_val key = {sizeof order[i], (void *)&order[i]}, row;
        MDB_CHECK(mdb_get(txn, db->direct, &key, &row));
        if (row.mv_size != ROW_INTS * sizeof(int64_t)) die("raw direct lookup", "bad row size");
        int64_t v;
        memcpy(&v, (const uint8_t *)row.mv_data + (1 + LOOKUP_PROP) * sizeof v, sizeof v);
        sum += v;
    }
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw direct lookup", sum, expected_lookup_sum(), N, N);
    return elapsed;
}

/* ---- the Larder C API ---- */

typedef struct lar_db {
    lar_env *env;
    lar_class cls;
    uint32_t id_prop, v_prop[PROPS];
} lar_db;

static void lar_db_open(lar_db *db, const char *path)
{
    static const char *const names[PROPS] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"};
    lar_property_def props[1 + PROPS];
    memset(props, 0, sizeof props);
    props[0] = (lar_property_def){"id", LAR_TYPE_INT, LAR_COLLECTION_NONE, LAR_PROP_PRIMARY_KEY, NULL, NULL};
    for (int j = 0; j < PROPS; j++)
        props[1 + j] = (lar_property_def){names[j], LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL};
    lar_class_def cls = {"Item", props, 1 + PROPS, 0};

    db->env = lar_open_fresh(path, &cls, 1);
    LAR_CHECK(lar_class_find(db->env, "Item", &db->cls));
    LAR_CHECK(lar_property_find(db->env, db->cls, "id", &db->id_prop));
    for (int j = 0; j < PROPS; j++) LAR_CHECK(lar_property_find(db->env, db->cls, names[j], &db->v_prop[j]));
}

static void lar_db_close(lar_db *db)
{
    LAR_CHECK(lar_env_close(db->env));
    db->env = NULL;
}

static uint64_t capi_insert(lar_db *db)
{
    lar_value values[1 + PROPS];
    memset(values, 0, sizeof values);
    for (int i = 0; i < 1 + PROPS; i++) values[i].type = LAR_TYPE_INT;
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
    for (int64_t id = 1; id <= N; id++) {
        values[db->id_prop].as.integer = id;
        for (int j = 0; j < PROPS; j++) values[db->v_prop[j]].as.integer = value_of(id, j);
        LAR_CHECK(lar_obj_create(txn, db->cls, values, 1 + PROPS, NULL));
    }
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);
    return elapsed;
}

/* One way of walking the class: adds every v_j it reads to *sum, returns the objects seen. */
typedef uint64_t (*scan_walk)(const lar_db *db, lar_iter *iter, int64_t *sum);

/* Times one read transaction walking the class with walk, and checks what it read. */
static uint64_t capi_scan_with(lar_db *db, scan_walk walk, const char *name)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    lar_iter *iter;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &txn));
    LAR_CHECK(lar_iter_open(txn, db->cls, &iter));
    int64_t sum = 0;
    uint64_t count = walk(db, iter, &sum);
    lar_iter_close(iter);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result(name, sum, expected_scan_sum(), count, N);
    return elapsed;
}

/* The header's fastest scan: each call fills BATCH structs of ten bound int64_t. */
#define BATCH 64
static uint64_t walk_batches(const lar_db *db, lar_iter *iter, int64_t *sum)
{
    int64_t rows[BATCH][PROPS];
    for (int j = 0; j < PROPS; j++) LAR_CHECK(lar_iter_bind_int(iter, db->v_prop[j], &rows[0][j]));
    uint64_t count = 0;
    size_t got;
    int rc;
    while ((rc = lar_iter_next_batch(iter, NULL, BATCH, sizeof rows[0], &got)) == LAR_OK) {
        for (size_t i = 0; i < got; i++)
            for (int j = 0; j < PROPS; j++) *sum += rows[i][j];
        count += got;
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_iter_next_batch", rc);
    return count;
}

/* One object per call: each step fills ten bound int64_t variables. */
static uint64_t walk_steps(const lar_db *db, lar_iter *iter, int64_t *sum)
{
    int64_t v[PROPS];
    for (int j = 0; j < PROPS; j++) LAR_CHECK(lar_iter_bind_int(iter, db->v_prop[j], &v[j]));
    uint64_t count = 0;
    lar_obj obj;
    int rc;
    while ((rc = lar_iter_next(iter, &obj)) == LAR_OK) {
        for (int j = 0; j < PROPS; j++) *sum += v[j];
        count++;
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_iter_next", rc);
    return count;
}

/* The general scan: every property as a tagged lar_value, its type checked. */
static uint64_t walk_values(const lar_db *db, lar_iter *iter, int64_t *sum)
{
    uint64_t count = 0;
    lar_obj obj;
    lar_value values[1 + PROPS];
    int rc;
    while ((rc = lar_iter_next_all(iter, &obj, values, 1 + PROPS)) == LAR_OK) {
        for (int j = 0; j < PROPS; j++) {
            const lar_value *v = &values[db->v_prop[j]];
            if (v->type != LAR_TYPE_INT) die("c-api-values scan", "a property is not an int");
            *sum += v->as.integer;
        }
        count++;
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_iter_next_all", rc);
    return count;
}

static uint64_t capi_lookup(lar_db *db, const int64_t *order)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &txn));
    int64_t sum = 0;
    uint32_t prop = db->v_prop[LOOKUP_PROP];
    for (size_t i = 0; i < N; i++) {
        lar_value key, v;
        key.type = LAR_TYPE_INT;
        key.as.integer = order[i];
        lar_obj obj;
        LAR_CHECK(lar_obj_find(txn, db->cls, &key, &obj));
        LAR_CHECK(lar_obj_get(txn, obj, prop, &v));
        if (v.type != LAR_TYPE_INT) die("c-api lookup", "v3 is not an int");
        sum += v.as.integer;
    }
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api lookup", sum, expected_lookup_sum(), N, N);
    return elapsed;
}

/* ---- reporting ---- */

static char result_lines[96][160];
static int result_count;

void report_n_vs(const char *workload, const char *impl, uint64_t n, uint64_t best_ns, uint64_t raw_ns,
                 const char *other, uint64_t other_ns)
{
    if (result_count == (int)(sizeof result_lines / sizeof result_lines[0])) die("report", "too many lines");
    double per_op = (double)best_ns / (double)n;
    double ratio = (double)best_ns / (double)raw_ns;
    char *line = result_lines[result_count++];
    /* Two decimals, or two significant digits for ratios that would print as 0.00. */
    const char *format = ratio >= 0.01 ? "BENCH workload=%s impl=%s n=%" PRIu64 " ns_per_op=%.1f vs_raw=%.2f"
                                       : "BENCH workload=%s impl=%s n=%" PRIu64 " ns_per_op=%.1f vs_raw=%.2g";
    int used = snprintf(line, sizeof result_lines[0], format, workload, impl, n, per_op, ratio);
    if (other && used > 0 && (size_t)used < sizeof result_lines[0])
        snprintf(line + used, sizeof result_lines[0] - (size_t)used, " vs_%s=%.2f", other,
                 (double)best_ns / (double)other_ns);
    printf("%s\n", line);
    fflush(stdout);
}

void report_n(const char *workload, const char *impl, uint64_t n, uint64_t best_ns, uint64_t raw_ns)
{
    report_n_vs(workload, impl, n, best_ns, raw_ns, NULL, 0);
}

static void report(const char *workload, const char *impl, uint64_t best_ns, uint64_t raw_ns)
{
    report_n(workload, impl, N, best_ns, raw_ns);
}

static void write_results(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/c-results.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) die(path, strerror(errno));
    for (int i = 0; i < result_count; i++) fprintf(f, "%s\n", result_lines[i]);
    if (ferror(f) | fclose(f)) die(path, "cannot write the results");
}

/* The objects workloads: insert, scan and lookup of N objects with ten ints. */
static void bench_objects(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api.larder", dir);
    fprintf(stderr, "bench_c: n=%d, best of %d (scan %d), durable sync, files in %s (larder %s)\n", N, REPEATS,
            SCAN_REPEATS, dir, lar_version(NULL, NULL, NULL));

    raw_db raw = {0};
    lar_db db = {0};
    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX;

    /* insert: fresh files every run; the last run's files stay for the reads. */
    for (int rep = 0; rep < REPEATS; rep++) {
        if (raw.env) raw_close(&raw);
        if (db.env) lar_db_close(&db);
        remove_database(raw_path);
        remove_database(lar_path);
        raw_open(&raw, raw_path);
        lar_db_open(&db, lar_path);
        best_raw = min_u64(best_raw, raw_insert(&raw));
        best_capi = min_u64(best_capi, capi_insert(&db));
    }
    report("insert", "raw-lmdb", best_raw, best_raw);
    report("insert", "c-api", best_capi, best_raw);

    best_raw = best_capi = UINT64_MAX;
    uint64_t best_steps = UINT64_MAX, best_values = UINT64_MAX;
    for (int rep = 0; rep < SCAN_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_scan(&raw));
        best_capi = min_u64(best_capi, capi_scan_with(&db, walk_batches, "c-api scan"));
        best_steps = min_u64(best_steps, capi_scan_with(&db, walk_steps, "c-api-step scan"));
        best_values = min_u64(best_values, capi_scan_with(&db, walk_values, "c-api-values scan"));
    }
    report("scan", "raw-lmdb", best_raw, best_raw);
    report("scan", "c-api", best_capi, best_raw);
    report("scan", "c-api-step", best_steps, best_raw);
    report("scan", "c-api-values", best_values, best_raw);

    int64_t *order = malloc(N * sizeof *order);
    if (!order) die("lookup", "out of memory");
    for (size_t i = 0; i < N; i++) order[i] = (int64_t)i + 1;
    bench_rng rng = bench_rng_seed(LOOKUP_SEED);
    bench_shuffle(order, N, &rng);
    raw_direct_fill(&raw);
    best_raw = best_capi = UINT64_MAX;
    uint64_t best_direct = UINT64_MAX;
    for (int rep = 0; rep < REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_lookup(&raw, order));
        best_direct = min_u64(best_direct, raw_direct_lookup(&raw, order));
        best_capi = min_u64(best_capi, capi_lookup(&db, order));
    }
    report("lookup", "raw-lmdb", best_raw, best_raw);
    report_n_vs("lookup", "raw-lmdb-direct", N, best_direct, best_raw, "direct", best_direct);
    report_n_vs("lookup", "c-api", N, best_capi, best_raw, "direct", best_direct);
    free(order);

    raw_close(&raw);
    lar_db_close(&db);
}

/* The objects insert beside the same insert with the change log off (see bench_changes.c). */
void bench_insert_logged(const char *dir, void (*unlog)(lar_env *env))
{
    char raw_path[4200], lar_path[4200], off_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-logged.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-logged.larder", dir);
    snprintf(off_path, sizeof off_path, "%s/c-api-unlogged.larder", dir);
    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX, best_off = UINT64_MAX;
    for (int rep = 0; rep < REPEATS; rep++) {
        raw_db raw = {0};
        lar_db db = {0}, off = {0};
        remove_database(raw_path);
        remove_database(lar_path);
        remove_database(off_path);
        raw_open(&raw, raw_path);
        lar_db_open(&db, lar_path);
        lar_db_open(&off, off_path);
        unlog(off.env);
        best_raw = min_u64(best_raw, raw_insert(&raw));
        best_capi = min_u64(best_capi, capi_insert(&db));
        best_off = min_u64(best_off, capi_insert(&off));
        raw_close(&raw);
        lar_db_close(&db);
        lar_db_close(&off);
    }
    report("insert-logged", "raw-lmdb", best_raw, best_raw);
    report_n_vs("insert-logged", "c-api", N, best_capi, best_raw, "unlogged", best_off);
    report("insert-logged", "c-api-unlogged", best_off, best_raw);
}

/* Section notify is LarderBench's alone (Swift notifications): nothing to run in C. */
static void bench_notify(const char *dir) { (void)dir; }

/* The sections, by the names LarderBench uses too. */
static const struct section {
    const char *name;
    void (*run)(const char *dir);
} SECTIONS[] = {
    {"objects", bench_objects}, {"collections", bench_collections}, {"mixed", bench_mixed},
    {"embedded", bench_embedded}, {"queries", bench_query}, {"changes", bench_changes},
    {"changes-sorted", bench_changes_sorted},
    {"notify", bench_notify},
};
#define SECTION_COUNT (sizeof SECTIONS / sizeof SECTIONS[0])

static bool section_named(const char *name)
{
    for (size_t i = 0; i < SECTION_COUNT; i++)
        if (!strcmp(SECTIONS[i].name, name)) return true;
    return false;
}

/* bench_c <dir> [section...]: every section, or only those named. */
int main(int argc, char **argv)
{
    bool usable = argc >= 2;
    for (int i = 2; usable && i < argc; i++) usable = section_named(argv[i]);
    if (!usable) {
        fprintf(stderr, "usage: %s <dir> [section...]   (sections: objects collections mixed embedded queries "
                "changes changes-sorted notify)\n",
                argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    make_dirs(dir);
    for (size_t s = 0; s < SECTION_COUNT; s++) {
        bool chosen = argc == 2;
        for (int i = 2; i < argc; i++) chosen |= !strcmp(argv[i], SECTIONS[s].name);
        if (chosen) SECTIONS[s].run(dir);
    }
    write_results(dir);
    return 0;
}
