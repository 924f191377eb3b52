/* The sort and aggregate workloads of bench_c (issue #13's benchmark): ORD_N dogs, each
 * with a random name ("dog 0123456") and a random age.
 *
 *   query-sort-int     every object in order of its age (ties: by key)
 *   query-sort-string  every object in order of its name, in code-point order
 *   query-sum          the sum and the average of the ages
 *
 * Two implementations, one read transaction each:
 *   raw-lmdb  a cursor walk over a table (MDB_INTEGERKEY) whose rows are [age][name],
 *             decoding the field into an array, then qsort (or a sum);
 *   c-api     the keys of every object (lar_iter_next_batch), then lar_results_sort or
 *             lar_results_aggregate. The results are built by hand, as lar_query_run
 *             will build them (the same keys, in key order).
 * Both sorts give the same keys in the same order (checked). Best of READ_REPEATS. */
#include "bench.h"
#include "query/results.h"

#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORD_N 200000
#define READ_REPEATS 5

typedef struct dog_row {
    int64_t age;
    char name[16];
    size_t name_size;
} dog_row;

static dog_row *dogs;
static int64_t age_sum;
static lar_objkey *created; /* the Larder key of dog i, increasing */

static void plan(void)
{
    dogs = malloc(ORD_N * sizeof *dogs);
    if (!dogs) die("bench_order", "out of memory");
    bench_rng rng = bench_rng_seed(13);
    age_sum = 0;
    for (size_t i = 0; i < ORD_N; i++) {
        dogs[i].age = (int64_t)bench_rng_below(&rng, 1000000);
        dogs[i].name_size = (size_t)snprintf(dogs[i].name, sizeof dogs[i].name, "dog %07llu",
                                             (unsigned long long)bench_rng_below(&rng, 10000000));
        age_sum += dogs[i].age;
    }
}

/* ---- raw LMDB ---- */

typedef struct raw_item {
    uint64_t key;
    int64_t age;
    const char *name;
    size_t name_size;
} raw_item;

static void raw_fill(const char *path)
{
    remove_database(path);
    MDB_env *env = raw_env_open(path);
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_CHECK(mdb_txn_begin(env, NULL, 0, &txn));
    MDB_CHECK(mdb_dbi_open(txn, "dogs", MDB_CREATE | MDB_INTEGERKEY, &dbi));
    uint8_t row[8 + 16];
    for (uint64_t key = 1; key <= ORD_N; key++) {
        const dog_row *d = &dogs[key - 1];
        memcpy(row, &d->age, 8);
        memcpy(row + 8, d->name, d->name_size);
        MDB_val k = {sizeof key, &key}, v = {8 + d->name_size, row};
        MDB_CHECK(mdb_put(txn, dbi, &k, &v, MDB_APPEND));
    }
    MDB_CHECK(mdb_txn_commit(txn));
    mdb_env_close(env);
}

static int by_age(const void *a, const void *b)
{
    const raw_item *x = a, *y = b;
    if (x->age != y->age) return x->age < y->age ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int by_name(const void *a, const void *b)
{
    const raw_item *x = a, *y = b;
    size_t n = x->name_size < y->name_size ? x->name_size : y->name_size;
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    if (x->name_size != y->name_size) return x->name_size < y->name_size ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* One walk decoding every row; sorts by compare (NULL: sums the ages). Keys go to sorted. */
static uint64_t raw_run(const char *path, int (*compare)(const void *, const void *), uint64_t *sorted)
{
    MDB_env *env = raw_env_open(path);
    raw_item *items = malloc(ORD_N * sizeof *items);
    if (!items) die("bench_order", "out of memory");
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_dbi_open(txn, "dogs", MDB_INTEGERKEY, &dbi));
    MDB_CHECK(mdb_cursor_open(txn, dbi, &cursor));
    size_t count = 0;
    int64_t sum = 0;
    MDB_val k, v;
    int rc;
    for (rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        if (count == ORD_N || v.mv_size < 8) die("raw query", "bad table");
        raw_item *it = &items[count++];
        memcpy(&it->key, k.mv_data, 8);
        memcpy(&it->age, v.mv_data, 8);
        it->name = (const char *)v.mv_data + 8;
        it->name_size = v.mv_size - 8;
        sum += it->age;
    }
    if (rc != MDB_NOTFOUND) die("raw query", mdb_strerror(rc));
    double average = (double)sum / (double)count;
    if (compare) qsort(items, count, sizeof *items, compare);
    for (size_t i = 0; compare && i < count; i++) sorted[i] = items[i].key;
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    mdb_env_close(env);
    free(items);
    if (!compare) check_result("raw query-sum", sum, age_sum, count, ORD_N);
    if (!compare && average != (double)age_sum / ORD_N) die("raw query-sum", "wrong average");
    return elapsed;
}

/* ---- the C API ---- */

static const lar_property_def dog_props[] = {
    {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"age", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
};

static lar_env *capi_fill(const char *path, lar_class *cls)
{
    lar_class_def def = {"Dog", dog_props, 2, 0};
    lar_env *env = lar_open_fresh(path, &def, 1);
    LAR_CHECK(lar_class_find(env, "Dog", cls));
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(env, LAR_TXN_WRITE, &txn));
    for (size_t i = 0; i < ORD_N; i++) {
        lar_value values[2] = {{.type = LAR_TYPE_STRING}, {.type = LAR_TYPE_INT}};
        values[0].as.string = (lar_string){dogs[i].name, dogs[i].name_size};
        values[1].as.integer = dogs[i].age;
        lar_obj obj;
        LAR_CHECK(lar_obj_create(txn, *cls, values, 2, &obj));
        created[i] = obj.key;
    }
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    return env;
}

/* Every object's key, in key order, as a query that selects them all gives them. */
static void all_keys(lar_txn *txn, lar_env *env, lar_class cls, lar_results *r)
{
    *r = (lar_results){.env = env, .cls = cls, .keys = malloc(ORD_N * sizeof *r->keys), .capacity = ORD_N};
    if (!r->keys) die("bench_order", "out of memory");
    lar_iter *it;
    LAR_CHECK(lar_iter_open(txn, cls, &it));
    lar_obj batch[256];
    size_t got;
    while (lar_iter_next_batch(it, batch, 256, sizeof *batch, &got) == LAR_OK && got)
        for (size_t i = 0; i < got && r->count < r->capacity; i++) r->keys[r->count++] = batch[i].key;
    lar_iter_close(it);
}

/* The raw key (1-based index) of the dog Larder keeps under key. */
static uint64_t dog_of(lar_objkey key)
{
    size_t low = 0, high = ORD_N;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (created[middle] < key) low = middle + 1;
        else high = middle;
    }
    if (low == ORD_N || created[low] != key) die("c-api query-sort", "an unknown key");
    return low + 1;
}

static uint64_t capi_run(lar_env *env, lar_class cls, const char *keypath, uint64_t *sorted)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(env, LAR_TXN_READ, &txn));
    lar_results r;
    all_keys(txn, env, cls, &r);
    lar_value sum = {0}, average = {0};
    if (keypath) {
        lar_sort_descriptor d = {keypath, 1};
        LAR_CHECK(lar_results_sort(txn, &r, &d, 1));
    } else {
        LAR_CHECK(lar_results_aggregate(txn, &r, "age", LAR_AGGREGATE_SUM, &sum));
        LAR_CHECK(lar_results_aggregate(txn, &r, "age", LAR_AGGREGATE_AVERAGE, &average));
    }
    LAR_CHECK(lar_txn_abort(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    for (size_t i = 0; keypath && i < r.count; i++) sorted[i] = dog_of(r.keys[i]);
    if (!keypath) check_result("c-api query-sum", sum.as.integer, age_sum, r.count, ORD_N);
    if (!keypath && average.as.float64 != (double)age_sum / ORD_N) die("c-api query-sum", "wrong average");
    free(r.keys);
    return elapsed;
}

void bench_order(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/order-raw.mdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/order.larder", dir);
    plan();
    created = malloc(ORD_N * sizeof *created);
    if (!created) die("bench_order", "out of memory");
    raw_fill(raw_path);
    lar_class cls;
    lar_env *env = capi_fill(lar_path, &cls);
    uint64_t *raw_sorted = malloc(ORD_N * sizeof *raw_sorted), *capi_sorted = malloc(ORD_N * sizeof *capi_sorted);
    if (!raw_sorted || !capi_sorted) die("bench_order", "out of memory");
    static const char *const workloads[] = {"query-sort-int", "query-sort-string", "query-sum"};
    static const char *const keypaths[] = {"age", "name", NULL};
    int (*const compares[])(const void *, const void *) = {by_age, by_name, NULL};
    for (int w = 0; w < 3; w++) {
        uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX;
        for (int rep = 0; rep < READ_REPEATS; rep++) {
            best_raw = min_u64(best_raw, raw_run(raw_path, compares[w], raw_sorted));
            best_capi = min_u64(best_capi, capi_run(env, cls, keypaths[w], capi_sorted));
            if (keypaths[w] && memcmp(raw_sorted, capi_sorted, ORD_N * sizeof *raw_sorted) != 0)
                die(workloads[w], "the C API's order differs from the raw sort's");
        }
        report_n(workloads[w], "raw-lmdb", ORD_N, best_raw, best_raw);
        report_n(workloads[w], "c-api", ORD_N, best_capi, best_raw);
    }
    LAR_CHECK(lar_env_close(env));
    free(raw_sorted);
    free(capi_sorted);
    free(dogs);
    free(created);
    remove_database(raw_path);
    remove_database(lar_path);
}
