/* The query workloads of bench_c (issue #13): QN items, each with
 *   name   indexed string "item-NNNNN", QNAMES distinct names, so QN / QNAMES items share one;
 *   age    int 0..99 (unindexed);       a  int 0..999;       b  int 0..9;
 *   word   8 lowercase letters;         owner -> Owner {age int 0..99}, QOWNERS owners.
 *
 *   query-indexed-eq    `name == $0` for QPROBES names: the count and the first match;
 *   query-range         `age >= 30 AND age < 40`;
 *   query-compound      `a > 500 AND (b == 3 OR word BEGINSWITH[c] "z")`;
 *   query-contains      `word CONTAINS[c] "ab"`;
 *   query-link          `owner.age > 50`;
 *   query-sort-int      every item sorted by a;
 *   query-sort-string   every item sorted by word;
 *   query-sum           the sum and average of a (c-api: lar_query_run_aggregates, both folded in one scan).
 * The filters count the matches and sum their a; the sorts check the sorted sequence of
 * values; ns_per_op is per item of the table (per probe for query-indexed-eq).
 *
 * raw-lmdb stores what a hand-written LMDB program would: rows (MDB_INTEGERKEY) of four
 * int64 (age, a, b, owner key) and two length-prefixed strings (name, word); a name index
 * (MDB_DUPSORT, name -> big-endian key) probed with MDB_SET and counted with
 * mdb_cursor_count; owners keyed by their key. Its loops decode the fields the query
 * tests, and its CONTAINS[c]/BEGINSWITH[c] fold ASCII only (the data is ASCII).
 * c-api parses each query once per run (lar_query_parse), runs it (lar_query_run) and
 * reads the keys of the result; sorts and aggregates go through lar_results_sort and
 * lar_query_run_aggregates. */
#include "bench.h"

#include "larder.h"

#include <lmdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QN 200000
#define QNAMES 20000
#define QOWNERS 1000
#define QPROBES 2000
#define READ_REPEATS 5

/* ---- the data, from each item's number i (1...QN) ---- */

typedef struct item {
    int64_t age, a, b;
    uint64_t owner;        /* 1...QOWNERS */
    char name[16], word[9];
} item;

static int64_t owner_age(uint64_t j)
{
    return (int64_t)((j * 37) % 100);
}

static void item_of(uint64_t i, item *it)
{
    it->age = (int64_t)((i * 7919) % 100);
    it->a = (int64_t)((i * 104729) % 1000);
    it->b = (int64_t)((i * 31) % 10);
    it->owner = i % QOWNERS + 1;
    snprintf(it->name, sizeof it->name, "item-%05llu", (unsigned long long)(i % QNAMES));
    uint64_t h = i * 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 8; k++) {
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        it->word[k] = (char)('a' + (h >> 40) % 26);
    }
    it->word[8] = '\0';
}

static const char *probe_name(size_t p, char out[16])
{
    snprintf(out, 16, "item-%05llu", (unsigned long long)((p * 7) % QNAMES));
    return out;
}

/* ---- what every implementation must find ---- */

typedef enum filter_kind { F_RANGE, F_COMPOUND, F_CONTAINS, F_LINK, F_COUNT } filter_kind;

static const char *const filter_workload[F_COUNT] = {
    "query-range", "query-compound", "query-contains", "query-link",
};
static const char *const filter_text[F_COUNT] = {
    "age >= 30 AND age < 40",
    "a > 500 AND (b == 3 OR word BEGINSWITH[c] \"z\")",
    "word CONTAINS[c] \"ab\"",
    "owner.age > 50",
};

static bool ascii_has(const char *s, size_t n, const char *pattern, bool prefix_only)
{
    size_t m = strlen(pattern);
    for (size_t at = 0; at + m <= n; at++) {
        size_t k = 0;
        while (k < m && (s[at + k] | 0x20) == pattern[k]) k++;
        if (k == m) return true;
        if (prefix_only) return false;
    }
    return false;
}

/* The filter on decoded fields: raw-lmdb's test, and the plan's. */
static bool filter_matches(filter_kind f, int64_t age, int64_t a, int64_t b, const char *word, size_t word_size,
                           int64_t owner_age_value)
{
    switch (f) {
    case F_RANGE: return age >= 30 && age < 40;
    case F_COMPOUND: return a > 500 && (b == 3 || ascii_has(word, word_size, "z", true));
    case F_CONTAINS: return ascii_has(word, word_size, "ab", false);
    case F_LINK: return owner_age_value > 50;
    default: return false;
    }
}

typedef struct expectation {
    uint64_t count[F_COUNT];
    int64_t sum[F_COUNT];          /* of a over the matches */
    uint64_t probe_count;          /* query-indexed-eq: matches over every probe */
    int64_t probe_first;           /* the sum of each probe's first (lowest) key */
    int64_t a_sum;                 /* query-sum */
    uint64_t sorted_a, sorted_word;/* checksums of the sorted value sequences */
} expectation;

static expectation expected;

/* Order-dependent checksum of a sequence of 64-bit values. */
static uint64_t checksum_step(uint64_t sum, uint64_t value)
{
    return (sum ^ value) * 0x100000001B3ull + 1;
}

static uint64_t word_bits(const char *word, size_t n)
{
    uint64_t v = 0;
    for (size_t k = 0; k < 8; k++) v = v << 8 | (k < n ? (uint8_t)word[k] : 0);
    return v;
}

static int compare_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void plan(void)
{
    memset(&expected, 0, sizeof expected);
    uint64_t *as = malloc(QN * sizeof *as), *words = malloc(QN * sizeof *words);
    if (!as || !words) die("plan", "out of memory");
    item it;
    for (uint64_t i = 1; i <= QN; i++) {
        item_of(i, &it);
        for (int f = 0; f < F_COUNT; f++)
            if (filter_matches((filter_kind)f, it.age, it.a, it.b, it.word, 8, owner_age(it.owner))) {
                expected.count[f]++;
                expected.sum[f] += it.a;
            }
        expected.a_sum += it.a;
        as[i - 1] = (uint64_t)it.a;
        words[i - 1] = word_bits(it.word, 8);
    }
    qsort(as, QN, sizeof *as, compare_u64);
    qsort(words, QN, sizeof *words, compare_u64); /* lowercase ASCII: byte order is Realm's order */
    for (size_t k = 0; k < QN; k++) {
        expected.sorted_a = checksum_step(expected.sorted_a, as[k]);
        expected.sorted_word = checksum_step(expected.sorted_word, words[k]);
    }
    free(as);
    free(words);
    char name[16];
    for (size_t p = 0; p < QPROBES; p++) {
        probe_name(p, name);
        uint64_t n = strtoull(name + 5, NULL, 10); /* items n, n + QNAMES, ... (n == 0: from QNAMES) */
        expected.probe_count += QN / QNAMES;
        expected.probe_first += (int64_t)(n ? n : QNAMES);
    }
}

/* ---- raw LMDB ---- */

typedef struct raw_query_db {
    MDB_env *env;
    MDB_dbi items, names, owners;
} raw_query_db;

#define RAW_INTS 4

static void raw_fill(raw_query_db *db, const char *path)
{
    remove_database(path);
    db->env = raw_env_open(path);
    db->items = raw_dbi(db->env, "items", MDB_INTEGERKEY);
    db->names = raw_dbi(db->env, "names", MDB_DUPSORT | MDB_DUPFIXED);
    db->owners = raw_dbi(db->env, "owners", MDB_INTEGERKEY);
    MDB_txn *txn;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, 0, &txn));
    for (uint64_t j = 1; j <= QOWNERS; j++) {
        int64_t age = owner_age(j);
        MDB_val k = {sizeof j, &j}, d = {sizeof age, &age};
        MDB_CHECK(mdb_put(txn, db->owners, &k, &d, MDB_APPEND));
    }
    item it;
    for (uint64_t key = 1; key <= QN; key++) {
        item_of(key, &it);
        uint8_t row[RAW_INTS * 8 + 2 + sizeof it.name + sizeof it.word];
        int64_t ints[RAW_INTS] = {it.age, it.a, it.b, (int64_t)it.owner};
        memcpy(row, ints, sizeof ints);
        size_t used = sizeof ints, n = strlen(it.name);
        row[used++] = (uint8_t)n;
        memcpy(row + used, it.name, n);
        used += n;
        row[used++] = 8;
        memcpy(row + used, it.word, 8);
        used += 8;
        MDB_val k = {sizeof key, &key}, d = {used, row};
        MDB_CHECK(mdb_put(txn, db->items, &k, &d, MDB_APPEND));
        uint8_t target[8];
        be64(key, target);
        MDB_val name = {n, it.name}, value = {sizeof target, target};
        MDB_CHECK(mdb_put(txn, db->names, &name, &value, 0));
    }
    MDB_CHECK(mdb_txn_commit(txn));
}

/* A raw row's fields. */
typedef struct raw_row {
    int64_t ints[RAW_INTS];
    const char *word;
    size_t word_size;
} raw_row;

static void raw_decode(const MDB_val *d, raw_row *r)
{
    const uint8_t *row = d->mv_data;
    if (d->mv_size < RAW_INTS * 8 + 2) die("raw query", "bad row");
    memcpy(r->ints, row, sizeof r->ints);
    size_t at = RAW_INTS * 8;
    at += 1 + row[at];
    if (at >= d->mv_size || at + 1 + row[at] > d->mv_size) die("raw query", "bad row");
    r->word_size = row[at];
    r->word = (const char *)row + at + 1;
}

static uint64_t raw_indexed_eq(raw_query_db *db)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, db->names, &cursor));
    uint64_t count = 0;
    int64_t first = 0;
    char name[16];
    for (size_t p = 0; p < QPROBES; p++) {
        probe_name(p, name);
        MDB_val k = {strlen(name), name}, d;
        MDB_CHECK(mdb_cursor_get(cursor, &k, &d, MDB_SET_KEY));
        size_t n;
        MDB_CHECK(mdb_cursor_count(cursor, &n));
        count += n;
        first += (int64_t)read_be64(d.mv_data);
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("raw query-indexed-eq", first, expected.probe_first, count, expected.probe_count);
    return elapsed;
}

static uint64_t raw_filter(raw_query_db *db, filter_kind f)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, db->items, &cursor));
    uint64_t count = 0;
    int64_t sum = 0;
    MDB_val k, d;
    raw_row r;
    int rc;
    for (rc = mdb_cursor_get(cursor, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &d, MDB_NEXT)) {
        raw_decode(&d, &r);
        int64_t linked_age = 0;
        if (f == F_LINK) {
            MDB_val ok = {sizeof(uint64_t), &r.ints[3]}, od;
            MDB_CHECK(mdb_get(txn, db->owners, &ok, &od));
            memcpy(&linked_age, od.mv_data, sizeof linked_age);
        }
        if (!filter_matches(f, r.ints[0], r.ints[1], r.ints[2], r.word, r.word_size, linked_age)) continue;
        count++;
        sum += r.ints[1];
    }
    if (rc != MDB_NOTFOUND) die("raw query", mdb_strerror(rc));
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result(filter_workload[f], sum, expected.sum[f], count, expected.count[f]);
    return elapsed;
}

/* One sort key and its object key. */
typedef struct raw_sort_item {
    uint64_t value, key;
} raw_sort_item;

static int compare_sort_items(const void *x, const void *y)
{
    const raw_sort_item *a = x, *b = y;
    if (a->value != b->value) return a->value < b->value ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

/* Sorts every item by a (by_word false) or by word, as (value, key) pairs. */
static uint64_t raw_sort(raw_query_db *db, bool by_word)
{
    uint64_t start = bench_now_ns();
    raw_sort_item *items = malloc(QN * sizeof *items);
    if (!items) die("raw sort", "out of memory");
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, db->items, &cursor));
    size_t n = 0;
    MDB_val k, d;
    raw_row r;
    int rc;
    for (rc = mdb_cursor_get(cursor, &k, &d, MDB_FIRST); rc == 0 && n < QN;
         rc = mdb_cursor_get(cursor, &k, &d, MDB_NEXT)) {
        raw_decode(&d, &r);
        uint64_t key;
        memcpy(&key, k.mv_data, sizeof key);
        items[n++] = (raw_sort_item){by_word ? word_bits(r.word, r.word_size) : (uint64_t)r.ints[1], key};
    }
    mdb_cursor_close(cursor);
    qsort(items, n, sizeof *items, compare_sort_items);
    /* The check reads the values again in the sorted order, as a caller would. */
    uint64_t checksum = 0;
    for (size_t i = 0; i < n; i++) {
        MDB_val key = {sizeof items[i].key, &items[i].key};
        MDB_CHECK(mdb_get(txn, db->items, &key, &d));
        raw_decode(&d, &r);
        checksum = checksum_step(checksum, by_word ? word_bits(r.word, r.word_size) : (uint64_t)r.ints[1]);
    }
    mdb_txn_abort(txn);
    free(items);
    uint64_t elapsed = bench_now_ns() - start;
    uint64_t want = by_word ? expected.sorted_word : expected.sorted_a;
    check_result(by_word ? "raw query-sort-string" : "raw query-sort-int", (int64_t)checksum, (int64_t)want, n, QN);
    return elapsed;
}

static uint64_t raw_sum(raw_query_db *db)
{
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_cursor_open(txn, db->items, &cursor));
    int64_t sum = 0;
    uint64_t count = 0;
    MDB_val k, d;
    int rc;
    for (rc = mdb_cursor_get(cursor, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &d, MDB_NEXT)) {
        int64_t a;
        memcpy(&a, (const uint8_t *)d.mv_data + 8, sizeof a);
        sum += a;
        count++;
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    double average = (double)sum / (double)count;
    uint64_t elapsed = bench_now_ns() - start;
    if (average * (double)count != (double)sum) die("raw query-sum", "bad average");
    check_result("raw query-sum", sum, expected.a_sum, count, QN);
    return elapsed;
}

/* ---- the C API ---- */

static const lar_property_def owner_props[] = {
    {"age", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
};
static const lar_property_def item_props[] = {
    {"n", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_INDEXED, NULL, NULL},
    {"age", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"a", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"b", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"word", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "QueryOwner", NULL},
};
enum { P_N, P_NAME, P_AGE, P_A, P_B, P_WORD, P_OWNER };

typedef struct capi_query_db {
    lar_env *env;
    lar_class items, owners;
} capi_query_db;

static lar_value int_value(int64_t v)
{
    lar_value value = {.type = LAR_TYPE_INT};
    value.as.integer = v;
    return value;
}

static lar_value text_value(const char *s)
{
    lar_value value = {.type = LAR_TYPE_STRING};
    value.as.string = (lar_string){s, strlen(s)};
    return value;
}

static void capi_fill(capi_query_db *db, const char *path)
{
    const lar_class_def defs[] = {
        {"QueryOwner", owner_props, 1, 0},
        {"QueryItem", item_props, sizeof item_props / sizeof item_props[0], 0},
    };
    db->env = lar_open_fresh(path, defs, 2);
    LAR_CHECK(lar_class_find(db->env, "QueryOwner", &db->owners));
    LAR_CHECK(lar_class_find(db->env, "QueryItem", &db->items));
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_WRITE, &txn));
    lar_obj *owners = malloc(QOWNERS * sizeof *owners);
    if (!owners) die("c-api query fill", "out of memory");
    for (uint64_t j = 1; j <= QOWNERS; j++) {
        lar_value age = int_value(owner_age(j));
        LAR_CHECK(lar_obj_create(txn, db->owners, &age, 1, &owners[j - 1]));
    }
    item it;
    for (uint64_t i = 1; i <= QN; i++) {
        item_of(i, &it);
        lar_value values[] = {int_value((int64_t)i), text_value(it.name), int_value(it.age), int_value(it.a),
                              int_value(it.b), text_value(it.word), {.type = LAR_TYPE_LINK}};
        values[P_OWNER].as.link = owners[it.owner - 1];
        LAR_CHECK(lar_obj_create(txn, db->items, values, sizeof values / sizeof values[0], NULL));
    }
    free(owners);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
}

static lar_query *capi_parse(capi_query_db *db, const char *text)
{
    lar_query *query;
    LAR_CHECK(lar_query_parse(db->env, db->items, text, &query));
    return query;
}

static uint64_t capi_indexed_eq(capi_query_db *db)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &txn));
    lar_query *query = capi_parse(db, "name == $0");
    uint64_t count = 0;
    int64_t first = 0;
    char name[16];
    for (size_t p = 0; p < QPROBES; p++) {
        lar_query_arg arg = {.kind = LAR_QUERY_ARG_VALUE, .value = text_value(probe_name(p, name))};
        LAR_CHECK(lar_query_bind(query, &arg, 1));
        lar_results *results;
        LAR_CHECK(lar_query_run(txn, query, &results));
        size_t n;
        lar_obj obj;
        LAR_CHECK(lar_results_count(results, &n));
        LAR_CHECK(lar_results_get(results, 0, &obj));
        count += n;
        first += (int64_t)obj.key;
        lar_results_free(results);
    }
    lar_query_free(query);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result("c-api query-indexed-eq", first, expected.probe_first, count, expected.probe_count);
    return elapsed;
}

#define BATCH 256

/* Walks a result in batches with bound variables: a (and word, when word is not NULL). */
typedef struct walk_row {
    int64_t a;
    lar_value word;
} walk_row;

static lar_iter *capi_walk_open(lar_txn *txn, const lar_results *results, walk_row *rows, bool with_word)
{
    lar_iter *iter;
    LAR_CHECK(lar_iter_open_results(txn, results, &iter));
    LAR_CHECK(lar_iter_bind_int(iter, P_A, &rows[0].a));
    if (with_word) LAR_CHECK(lar_iter_bind_value(iter, P_WORD, &rows[0].word));
    return iter;
}

static size_t capi_walk_next(lar_iter *iter, walk_row *rows)
{
    size_t got = 0;
    int rc = lar_iter_next_batch(iter, NULL, BATCH, sizeof rows[0], &got);
    if (rc != LAR_OK && rc != LAR_ENOTFOUND) lar_die("lar_iter_next_batch", rc);
    return got;
}

static uint64_t capi_filter(capi_query_db *db, filter_kind f)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &txn));
    lar_query *query = capi_parse(db, filter_text[f]);
    lar_results *results;
    LAR_CHECK(lar_query_run(txn, query, &results));
    walk_row rows[BATCH];
    lar_iter *iter = capi_walk_open(txn, results, rows, false);
    uint64_t count = 0;
    int64_t sum = 0;
    for (size_t got; (got = capi_walk_next(iter, rows)) > 0;) {
        for (size_t i = 0; i < got; i++) sum += rows[i].a;
        count += got;
    }
    lar_iter_close(iter);
    lar_results_free(results);
    lar_query_free(query);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    check_result(filter_workload[f], sum, expected.sum[f], count, expected.count[f]);
    return elapsed;
}

static lar_results *capi_all(lar_txn *txn, capi_query_db *db)
{
    lar_query *query = capi_parse(db, "TRUEPREDICATE");
    lar_results *results;
    LAR_CHECK(lar_query_run(txn, query, &results));
    lar_query_free(query);
    return results;
}

static uint64_t capi_sort(capi_query_db *db, bool by_word)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &txn));
    lar_results *results = capi_all(txn, db);
    lar_sort_descriptor by = {by_word ? "word" : "a", 1};
    LAR_CHECK(lar_results_sort(txn, results, &by, 1));
    walk_row rows[BATCH];
    lar_iter *iter = capi_walk_open(txn, results, rows, by_word);
    uint64_t checksum = 0, count = 0;
    for (size_t got; (got = capi_walk_next(iter, rows)) > 0;) {
        for (size_t i = 0; i < got; i++) {
            uint64_t v = by_word ? word_bits(rows[i].word.as.string.data, rows[i].word.as.string.size)
                                 : (uint64_t)rows[i].a;
            checksum = checksum_step(checksum, v);
        }
        count += got;
    }
    lar_iter_close(iter);
    lar_results_free(results);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    uint64_t want = by_word ? expected.sorted_word : expected.sorted_a;
    check_result(by_word ? "c-api query-sort-string" : "c-api query-sort-int", (int64_t)checksum, (int64_t)want,
                 count, QN);
    return elapsed;
}

static uint64_t capi_sum(capi_query_db *db)
{
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(db->env, LAR_TXN_READ, &txn));
    /* Both folded in one scan, as the raw loop does: no result of 200,000 keys is collected. */
    lar_query *all = capi_parse(db, "TRUEPREDICATE");
    const lar_aggregate_op ops[] = {LAR_AGGREGATE_SUM, LAR_AGGREGATE_AVERAGE};
    lar_value folded[2];
    LAR_CHECK(lar_query_run_aggregates(txn, all, "a", ops, 2, folded));
    lar_value sum = folded[0], average = folded[1];
    lar_query_free(all);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    if (sum.type != LAR_TYPE_INT || average.type != LAR_TYPE_DOUBLE) die("c-api query-sum", "unexpected types");
    uint64_t count = (uint64_t)((double)sum.as.integer / average.as.float64 + 0.5);
    check_result("c-api query-sum", sum.as.integer, expected.a_sum, count, QN);
    return elapsed;
}

/* ---- the run ---- */

void bench_query(const char *dir)
{
    char raw_path[4200], lar_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-query.lmdb", dir);
    snprintf(lar_path, sizeof lar_path, "%s/c-api-query.larder", dir);
    plan();
    raw_query_db raw;
    capi_query_db db;
    raw_fill(&raw, raw_path);
    capi_fill(&db, lar_path);

    uint64_t best_raw = UINT64_MAX, best_capi = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_indexed_eq(&raw));
        best_capi = min_u64(best_capi, capi_indexed_eq(&db));
    }
    report_n("query-indexed-eq", "raw-lmdb", QPROBES, best_raw, best_raw);
    report_n("query-indexed-eq", "c-api", QPROBES, best_capi, best_raw);

    for (int f = 0; f < F_COUNT; f++) {
        best_raw = best_capi = UINT64_MAX;
        for (int rep = 0; rep < READ_REPEATS; rep++) {
            best_raw = min_u64(best_raw, raw_filter(&raw, (filter_kind)f));
            best_capi = min_u64(best_capi, capi_filter(&db, (filter_kind)f));
        }
        report_n(filter_workload[f], "raw-lmdb", QN, best_raw, best_raw);
        report_n(filter_workload[f], "c-api", QN, best_capi, best_raw);
    }

    for (int by_word = 0; by_word < 2; by_word++) {
        best_raw = best_capi = UINT64_MAX;
        for (int rep = 0; rep < READ_REPEATS; rep++) {
            best_raw = min_u64(best_raw, raw_sort(&raw, by_word));
            best_capi = min_u64(best_capi, capi_sort(&db, by_word));
        }
        const char *workload = by_word ? "query-sort-string" : "query-sort-int";
        report_n(workload, "raw-lmdb", QN, best_raw, best_raw);
        report_n(workload, "c-api", QN, best_capi, best_raw);
    }

    best_raw = best_capi = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_sum(&raw));
        best_capi = min_u64(best_capi, capi_sum(&db));
    }
    report_n("query-sum", "raw-lmdb", QN, best_raw, best_raw);
    report_n("query-sum", "c-api", QN, best_capi, best_raw);

    mdb_env_close(raw.env);
    LAR_CHECK(lar_env_close(db.env));
}
