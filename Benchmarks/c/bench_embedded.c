/* The embedded-object workloads of bench_c (issue #12 point 8): EMB_N people, each with
 * a name and an address of 4 strings (street, city, country, postal code).
 *
 *   embedded-insert  create them in one write transaction, commit included;
 *   embedded-scan    one read transaction visiting every person and reading its name
 *                    and its address's 4 strings (summing their lengths).
 *
 * Three implementations:
 *   raw-lmdb     one table (MDB_INTEGERKEY, MDB_APPEND) whose rows hold the 5 strings,
 *                length-prefixed; the scan is one cursor walk;
 *   c-api-plain  the same data as plain properties: Person {name, street, city, country,
 *                postalCode}, created with lar_obj_create, scanned with lar_iter_next_all;
 *   c-api        Person {name, address -> Address?} with Address embedded (LAR_CLASS_EMBEDDED)
 *                {street, city, country, postalCode}: both created by one
 *                lar_obj_create_with_embedded; the scan's steps read each person's address
 *                with it (lar_iter_follow). Its line adds vs_plain, the ratio to c-api-plain
 *                (the target: within 2x).
 * Each measurement is the best of its repeats; the implementations alternate. */
#include "bench.h"

#include "larder.h"

#include <lmdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMB_N 200000
#define WRITE_REPEATS 3
#define READ_REPEATS 5

/* Person i's five strings: name, street, city, country, postal code. */
typedef struct person_text {
    char s[5][32];
    size_t n[5];
} person_text;

static void person_text_of(uint64_t i, person_text *t)
{
    t->n[0] = (size_t)snprintf(t->s[0], sizeof t->s[0], "Person %llu", (unsigned long long)i);
    t->n[1] = (size_t)snprintf(t->s[1], sizeof t->s[1], "%llu Main Street", (unsigned long long)(i % 9973));
    t->n[2] = (size_t)snprintf(t->s[2], sizeof t->s[2], "City %llu", (unsigned long long)(i % 503));
    t->n[3] = (size_t)snprintf(t->s[3], sizeof t->s[3], "Country %llu", (unsigned long long)(i % 50));
    t->n[4] = (size_t)snprintf(t->s[4], sizeof t->s[4], "%05llu", (unsigned long long)(i % 100000));
}

static int64_t expected_sum;

static void plan(void)
{
    expected_sum = 0;
    person_text t;
    for (uint64_t i = 1; i <= EMB_N; i++) {
        person_text_of(i, &t);
        for (int k = 0; k < 5; k++) expected_sum += (int64_t)t.n[k];
    }
}

static lar_value string_value(const char *s, size_t n)
{
    lar_value v = {.type = LAR_TYPE_STRING};
    v.as.string = (lar_string){s, n};
    return v;
}

/* ---- raw LMDB ---- */

static uint64_t raw_insert(const char *path)
{
    remove_database(path);
    MDB_env *env = raw_env_open(path);
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_CHECK(mdb_txn_begin(env, NULL, 0, &txn));
    MDB_CHECK(mdb_dbi_open(txn, "people", MDB_CREATE | MDB_INTEGERKEY, &dbi));
    person_text t;
    uint8_t row[5 * 34];
    for (uint64_t key = 1; key <= EMB_N; key++) {
        person_text_of(key, &t);
        size_t used = 0;
        for (int k = 0; k < 5; k++) {
            row[used++] = (uint8_t)t.n[k];
            memcpy(row + used, t.s[k], t.n[k]);
            used += t.n[k];
        }
        MDB_val k = {sizeof key, &key}, d = {used, row};
        MDB_CHECK(mdb_put(txn, dbi, &k, &d, MDB_APPEND));
    }
    MDB_CHECK(mdb_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    mdb_env_close(env);
    return elapsed;
}

static uint64_t raw_scan(const char *path)
{
    MDB_env *env = raw_env_open(path);
    uint64_t start = bench_now_ns();
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cursor;
    MDB_CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
    MDB_CHECK(mdb_dbi_open(txn, "people", MDB_INTEGERKEY, &dbi));
    MDB_CHECK(mdb_cursor_open(txn, dbi, &cursor));
    int64_t sum = 0;
    uint64_t count = 0;
    MDB_val k, d;
    int rc;
    for (rc = mdb_cursor_get(cursor, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cursor, &k, &d, MDB_NEXT)) {
        const uint8_t *row = d.mv_data;
        size_t at = 0;
        for (int f = 0; f < 5; f++) {
            if (at >= d.mv_size) die("raw embedded-scan", "bad row");
            size_t n = row[at++];
            sum += (int64_t)n;
            at += n;
        }
        count++;
    }
    if (rc != MDB_NOTFOUND) die("raw embedded-scan", mdb_strerror(rc));
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    uint64_t elapsed = bench_now_ns() - start;
    mdb_env_close(env);
    check_result("raw embedded-scan", sum, expected_sum, count, EMB_N);
    return elapsed;
}

/* ---- the C API ---- */

static const lar_property_def plain_props[] = {
    {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"street", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
    {"city", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
    {"country", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
    {"postalCode", LAR_TYPE_STRING, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
};
static const lar_property_def owner_props[] = {
    {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
    {"address", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Address", NULL},
};

static lar_env *open_fresh(const char *path, bool embedded, lar_class *cls)
{
    lar_class_def defs[2] = {
        {"Person", embedded ? owner_props : plain_props, embedded ? 2 : 5, 0},
        {"Address", plain_props + 1, 4, LAR_CLASS_EMBEDDED},
    };
    lar_env *env = lar_open_fresh(path, defs, embedded ? 2 : 1);
    LAR_CHECK(lar_class_find(env, "Person", cls));
    return env;
}

static uint64_t capi_insert(const char *path, bool embedded)
{
    lar_class cls;
    lar_env *env = open_fresh(path, embedded, &cls);
    uint32_t address_prop = 0;
    if (embedded) LAR_CHECK(lar_property_find(env, cls, "address", &address_prop));
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    LAR_CHECK(lar_txn_begin(env, LAR_TXN_WRITE, &txn));
    person_text t;
    lar_value values[5];
    for (uint64_t i = 1; i <= EMB_N; i++) {
        person_text_of(i, &t);
        for (int k = 0; k < 5; k++) values[k] = string_value(t.s[k], t.n[k]);
        if (!embedded) {
            LAR_CHECK(lar_obj_create(txn, cls, values, 5, NULL));
            continue;
        }
        lar_value person[2] = {values[0], {.type = LAR_TYPE_NULL}};
        lar_embedded_init address = {address_prop, values + 1, 4};
        LAR_CHECK(lar_obj_create_with_embedded(txn, cls, person, 2, &address, 1, NULL, NULL));
    }
    LAR_CHECK(lar_txn_commit(txn));
    uint64_t elapsed = bench_now_ns() - start;
    lar_txn_free(txn);
    LAR_CHECK(lar_env_close(env));
    return elapsed;
}

static uint64_t capi_scan(const char *path, bool embedded)
{
    lar_env *env;
    LAR_CHECK(lar_env_open(path, NULL, &env));
    lar_class cls;
    LAR_CHECK(lar_class_find(env, "Person", &cls));
    uint64_t start = bench_now_ns();
    lar_txn *txn;
    lar_iter *iter;
    LAR_CHECK(lar_txn_begin(env, LAR_TXN_READ, &txn));
    LAR_CHECK(lar_iter_open(txn, cls, &iter));
    int64_t sum = 0;
    uint64_t count = 0;
    lar_obj obj;
    lar_value values[5];
    int rc;
    if (!embedded) {
        while ((rc = lar_iter_next_all(iter, &obj, values, 5)) == LAR_OK) {
            for (int k = 0; k < 5; k++) sum += (int64_t)values[k].as.string.size;
            count++;
        }
    } else {
        lar_value person[2];
        lar_objkey address;
        LAR_CHECK(lar_iter_follow(iter, 1, values, 4, &address));
        while ((rc = lar_iter_next_all(iter, &obj, person, 2)) == LAR_OK) {
            if (address == 0) die("c-api embedded-scan", "a person without an address");
            sum += (int64_t)person[0].as.string.size;
            for (int k = 0; k < 4; k++) sum += (int64_t)values[k].as.string.size;
            count++;
        }
    }
    if (rc != LAR_ENOTFOUND) lar_die("lar_iter_next_all", rc);
    lar_iter_close(iter);
    LAR_CHECK(lar_txn_commit(txn));
    lar_txn_free(txn);
    uint64_t elapsed = bench_now_ns() - start;
    LAR_CHECK(lar_env_close(env));
    check_result(embedded ? "c-api embedded-scan" : "c-api-plain embedded-scan", sum, expected_sum, count, EMB_N);
    return elapsed;
}

void bench_embedded(const char *dir)
{
    char raw_path[4200], plain_path[4200], emb_path[4200];
    snprintf(raw_path, sizeof raw_path, "%s/raw-embedded.lmdb", dir);
    snprintf(plain_path, sizeof plain_path, "%s/c-api-embedded-plain.larder", dir);
    snprintf(emb_path, sizeof emb_path, "%s/c-api-embedded.larder", dir);
    plan();
    uint64_t best_raw = UINT64_MAX, best_plain = UINT64_MAX, best_emb = UINT64_MAX;
    for (int rep = 0; rep < WRITE_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_insert(raw_path));
        best_plain = min_u64(best_plain, capi_insert(plain_path, false));
        best_emb = min_u64(best_emb, capi_insert(emb_path, true));
    }
    report_n("embedded-insert", "raw-lmdb", EMB_N, best_raw, best_raw);
    report_n("embedded-insert", "c-api-plain", EMB_N, best_plain, best_raw);
    report_n_vs("embedded-insert", "c-api", EMB_N, best_emb, best_raw, "plain", best_plain);

    best_raw = best_plain = best_emb = UINT64_MAX;
    for (int rep = 0; rep < READ_REPEATS; rep++) {
        best_raw = min_u64(best_raw, raw_scan(raw_path));
        best_plain = min_u64(best_plain, capi_scan(plain_path, false));
        best_emb = min_u64(best_emb, capi_scan(emb_path, true));
    }
    report_n("embedded-scan", "raw-lmdb", EMB_N, best_raw, best_raw);
    report_n("embedded-scan", "c-api-plain", EMB_N, best_plain, best_raw);
    report_n_vs("embedded-scan", "c-api", EMB_N, best_emb, best_raw, "plain", best_plain);
}
