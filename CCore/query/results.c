/* Running a query into a result: the keys of the matching objects, in key order, and
 * the version they were computed at. A predicate with an equality, IN or range term on
 * a primary key or indexed property (alone, in a top-level AND, or in each branch of a
 * top-level OR) checks only the objects the index names (and reads none when equalities
 * the index holds whole are the whole predicate); any other scans the class table once,
 * checking each row with the compiled plan. lar_query_run_keys checks the objects the
 * caller names instead, in their order, as a probe checks the ones an index names. */
#include "query/results.h"
#include "query/order.h"
#include "query/plan.h"

#include <stdlib.h>
#include <string.h>

/* Makes room for count more keys (and rows, when r keeps them). */
static int reserve(lar_results *r, size_t count)
{
    if (r->capacity - r->count >= count) return LAR_OK;
    size_t capacity = r->capacity ? r->capacity : 64;
    while (capacity - r->count < count) capacity *= 2;
    lar_objkey *keys = big_realloc(r->keys, capacity * sizeof *keys);
    if (keys) r->keys = keys;
    kv_val *rows = keys && r->rows ? big_realloc(r->rows, capacity * sizeof *rows) : NULL;
    if (rows) r->rows = rows;
    if (!keys || (r->rows && !rows)) return lar_fail(LAR_ENOMEM, "out of memory collecting a query's results");
    r->capacity = capacity;
    return LAR_OK;
}

/* The sink of lar_query_run: the keys of the matches, and in a read their rows. */
typedef struct key_sink {
    row_sink base;
    lar_results *r;
} key_sink;

static int take_keys(row_sink *self, const lar_objkey *keys, const kv_val *rows, size_t count)
{
    lar_results *r = ((key_sink *)self)->r;
    int err = reserve(r, count);
    if (err) return err;
    memcpy(r->keys + r->count, keys, count * sizeof *keys);
    if (r->rows) memcpy(r->rows + r->count, rows, count * sizeof *rows);
    r->count += count;
    return LAR_OK;
}

/* Room for every object of the table before a scan: the keys (and rows) are not copied
 * as they grow, and pages no match reaches are never touched. Only a hint: without the
 * memory the scan grows them as it goes. */
static void presize(lar_txn *txn, const schema_class *cls, lar_results *r)
{
    uint64_t entries;
    if (kv_count(txn, cls->dbi, &entries) || entries <= r->capacity || entries > SIZE_MAX / sizeof(kv_val)) return;
    lar_objkey *keys = big_realloc(r->keys, (size_t)entries * sizeof *keys);
    if (!keys) return;
    r->keys = keys;
    r->capacity = (size_t)entries;
}

/* After a scan: the room no match took back (a selective query over a large table). */
static void trim(lar_results *r)
{
    if (r->capacity - r->count < 4096) return;
    size_t capacity = r->count ? r->count : 1;
    lar_objkey *keys = big_realloc(r->keys, capacity * sizeof *keys);
    if (keys) r->keys = keys;
    kv_val *rows = keys && r->rows ? big_realloc(r->rows, capacity * sizeof *rows) : NULL;
    if (rows) r->rows = rows;
    if (keys) r->capacity = capacity; /* a rows array left larger still has room */
}

/* In a read transaction r keeps the rows it is computed from (results.h). */
static int keep_rows(lar_txn *txn, lar_results *r)
{
    if (txn->write) return LAR_OK;
    r->rows = big_alloc((r->capacity ? r->capacity : 1) * sizeof *r->rows);
    if (!r->rows) return lar_fail(LAR_ENOMEM, "out of memory running a query");
    r->rows_generation = txn->generation;
    return LAR_OK;
}

void results_forget_rows(lar_results *r)
{
    big_free(r->rows);
    r->rows = NULL;
}

int results_to_blocks(lar_results *r)
{
    if (r->blocks) return LAR_OK;
    key_blocks *b = key_blocks_new(r->keys, r->count, KEY_BLOCK_ROOM);
    if (!b) return lar_fail(LAR_ENOMEM, "out of memory putting a result's keys in blocks");
    results_forget_rows(r);
    big_free(r->keys);
    r->keys = NULL;
    r->capacity = 0;
    r->blocks = b;
    return LAR_OK;
}

int results_flatten(lar_results *r)
{
    if (!r->blocks) return LAR_OK;
    lar_objkey *keys = big_alloc((r->count ? r->count : 1) * sizeof *keys);
    if (!keys) return lar_fail(LAR_ENOMEM, "out of memory gathering a result's keys");
    if (r->count) key_blocks_copy(r->blocks, 0, r->count, keys);
    key_blocks_free(r->blocks);
    r->blocks = NULL;
    r->keys = keys;
    r->capacity = r->count ? r->count : 1;
    return LAR_OK;
}

void results_truncate(lar_results *r, size_t count)
{
    if (r->blocks) key_blocks_truncate(r->blocks, count);
    r->count = count;
}

/* Matches go to the sink this many at a time. */
#define SCAN_BATCH 64

/* The rows of a scan or a probe that match, gathered for the sink. A write
 * transaction's rows may move while a check reads other tables (a read can flush what
 * the write gathered), so there a plan that reads them checks a copy of the row and
 * hands each match over at once. */
typedef struct matches {
    lar_txn *txn;
    const schema_class *cls;
    plan *p;
    row_sink *sink;
    byte_buffer copy;
    bool copying;
    bool all;                 /* the plan matches every sound row: only the shape is checked */
    size_t count, batch;
    lar_objkey keys[SCAN_BATCH];
    kv_val rows[SCAN_BATCH];
} matches;

static void matches_open(matches *m, lar_txn *txn, const schema_class *cls, plan *p, row_sink *sink)
{
    m->txn = txn;
    m->cls = cls;
    m->p = p;
    m->sink = sink;
    m->copy = (byte_buffer){0};
    m->copying = txn->write && plan_reads_other_rows(p);
    m->all = plan_matches_all(p);
    m->count = 0;
    m->batch = txn->write ? 1 : SCAN_BATCH;
}

/* Checks one row; a match joins the batch, which goes to the sink when full. Inlined
 * into the scan loop: clang (SwiftPM's build of the core) otherwise calls it per row,
 * 45 instructions where the loop's own work is 55. */
__attribute__((always_inline)) static inline int check_row(matches *m, lar_objkey key, kv_val row)
{
    if (m->copying) {
        m->copy.size = 0;
        if (buffer_append(&m->copy, row.mv_data, row.mv_size)) return lar_fail(LAR_ENOMEM, "out of memory running a query");
        row.mv_data = m->copy.data;
    }
    int match = !m->all ? plan_match_inline(m->p, key, &row)
                        : row_shape_ok(m->cls, &row) ? 1 : row_check_shape(m->cls, &row);
    if (match <= 0) return match;
    m->keys[m->count] = key;
    m->rows[m->count] = row;
    if (++m->count < m->batch) return LAR_OK;
    m->count = 0;
    return m->sink->take(m->sink, m->keys, m->rows, m->batch);
}

/* Hands over what is left (err: the run failed, nothing more is handed over). */
static int matches_close(matches *m, int err)
{
    if (!err && m->count) err = m->sink->take(m->sink, m->keys, m->rows, m->count);
    buffer_free(&m->copy);
    return err;
}

static int scan(lar_txn *txn, const schema_class *cls, plan *p, row_sink *sink)
{
    kv_walk walk;
    int rc = kv_walk_open(txn, cls->dbi, &walk);
    if (rc) return lar_fail_mdb(rc, "cannot run a query");
    matches m;
    matches_open(&m, txn, cls, p, sink);
    kv_val key, row;
    int err = LAR_OK;
    for (rc = kv_walk_next(&walk, &key, &row); !rc && !err; rc = kv_walk_next(&walk, &key, &row)) {
        lar_objkey k;
        if (key.mv_size != sizeof k) {
            err = lar_fail(LAR_ECORRUPT, "the table of class '%s' holds a key of %zu bytes", cls->name, key.mv_size);
            break;
        }
        memcpy(&k, key.mv_data, sizeof k);
        err = check_row(&m, k, row);
    }
    kv_walk_close(&walk);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot run a query");
    return matches_close(&m, err);
}

/* The index answers the whole predicate: its entries are the result, and no row is read
 * (a damaged row is reported when the object is read). */
static int keep_candidates(lar_results *r, lar_objkey *candidates, size_t count)
{
    r->keys = candidates;
    r->count = r->capacity = count;
    return LAR_OK;
}

/* A query that is one equality an index answers (query_one_equality): probed without
 * compiling a plan. *answered is false when the index holds the value cut short. */
static int probe_alone(lar_txn *txn, const probe_term *term, lar_results *r, bool *answered)
{
    lar_objkey *candidates = NULL;
    size_t count = 0;
    bool exact;
    *answered = false;
    int err = probe_candidates(txn, r->cls, term, 1, &candidates, &count, &exact);
    if (err || !exact) {
        big_free(candidates);
        return err;
    }
    *answered = true;
    return keep_candidates(r, candidates, count);
}

/* Checks the objects keys names, in their order, with p: the matches go to r. A key with
 * no object is skipped (an index entry without its object: only damage leaves one; a key
 * a caller gave of an object since deleted). */
static int check_keys(lar_txn *txn, const schema_class *cls, plan *p, const lar_objkey *keys, size_t count,
                      lar_results *r)
{
    key_sink sink = {{take_keys}, r};
    int err = keep_rows(txn, r);
    matches m;
    matches_open(&m, txn, cls, p, &sink.base);
    for (size_t i = 0; !err && i < count; i++) {
        kv_val key = {sizeof keys[i], (void *)&keys[i]}, row;
        int rc = kv_get(txn, cls->dbi, &key, &row);
        if (rc == KV_NOTFOUND) continue;
        err = rc ? lar_fail_mdb(rc, "cannot run a query") : check_row(&m, keys[i], row);
    }
    return matches_close(&m, err);
}

static int probe(lar_txn *txn, const schema_class *cls, plan *p, const probe_term *terms, size_t term_count,
                 lar_results *r)
{
    lar_objkey *candidates = NULL;
    size_t count = 0;
    bool exact;
    int err = probe_candidates(txn, r->cls, terms, term_count, &candidates, &count, &exact);
    if (!err && exact && plan_terms_are_whole(p)) return keep_candidates(r, candidates, count);
    if (!err) err = check_keys(txn, cls, p, candidates, count, r);
    big_free(candidates);
    return err;
}

/* The write transaction a result was computed in has ended. */
static void writer_ended(txn_dependent *self, lar_txn *txn)
{
    (void)txn;
    lar_results *r = (lar_results *)((char *)self - offsetof(lar_results, link));
    r->writer = NULL;
    r->stale = true;
}

void record_version(lar_txn *txn, lar_results *r)
{
    r->snapshot = kv_txn_id(txn);
    if (!txn->write) return;
    r->writer = txn;
    r->mutations = txn->mutations;
    r->link.detach = writer_ended;
    txn_depend(txn, &r->link);
}

/* Checks that the query can run: every argument bound, every %K resolved. */
static int check_ready(const lar_query *q)
{
    if (!q->root) return lar_fail(LAR_EINVAL, "the query is not finished: call lar_query_finish() first");
    for (long i = 0; i < q->arg_count; i++)
        if (!q->args || q->args[i].kind == 0)
            return lar_fail(LAR_EINVAL, "argument %ld of the query is not bound: call lar_query_bind() first", i);
    if (!q->resolved) return lar_fail(LAR_EINVAL, "the query is not resolved: bind its arguments first");
    return LAR_OK;
}

void lar_results_free(lar_results *results)
{
    if (!results) return;
    if (results->writer) txn_forget(results->writer, &results->link);
    big_free(results->keys);
    key_blocks_free(results->blocks);
    big_free(results->rows);
    free(results);
}

/* Compiles the query and runs the plan: through an index when one answers a term, else
 * by a scan. */
static int run_plan(lar_txn *txn, const lar_query *query, const schema_class *cls, lar_results *r)
{
    plan *p;
    int err = plan_compile(txn, query, &p);
    if (err) return err;
    probe_term terms[PROBE_TERMS_MAX];
    size_t term_count = plan_probe_terms(p, terms);
    key_sink sink = {{take_keys}, r};
    if (term_count) err = probe(txn, cls, p, terms, term_count, r);
    else {
        presize(txn, cls, r);
        if (!(err = keep_rows(txn, r))) err = scan(txn, cls, p, &sink.base);
        if (!err) trim(r);
    }
    plan_free(p);
    return err;
}

int query_check_ready(lar_txn *txn, const lar_query *query)
{
    int err = txn_check(txn, false);
    if (err) return err;
    if (query->env != txn->env) return lar_fail(LAR_EINVAL, "the query belongs to another environment");
    return check_ready(query);
}

int query_check_runnable(lar_txn *txn, const lar_query *query, const schema_class **cls)
{
    int err = query_check_ready(txn, query);
    if (err) return err;
    if (query->values)
        return lar_fail(LAR_EINVAL, "the query is over values: test them with lar_query_match_values()");
    *cls = schema_class_at(txn->schema, query->cls);
    if (!*cls) return lar_fail(LAR_EINVAL, "the query's class %u is not in this transaction's schema", query->cls);
    return LAR_OK;
}

int query_scan_matches(lar_txn *txn, const lar_query *query, const schema_class *cls, row_sink *sink,
                       bool *scanned)
{
    probe_term terms[PROBE_TERMS_MAX];
    *scanned = false;
    if (query->order_count || query_one_equality(query, cls, terms)) return LAR_OK;
    plan *p;
    int err = plan_compile(txn, query, &p);
    if (err) return err;
    if (plan_probe_terms(p, terms) == 0) {
        *scanned = true;
        err = scan(txn, cls, p, sink);
    }
    plan_free(p);
    return err;
}

/* A run's end: the query's SORT, DISTINCT and LIMIT applied in their order, and r stamped
 * with txn's version into *out; r freed when err, or they, failed. */
static int finish_run(lar_txn *txn, const lar_query *query, lar_results *r, int err, lar_results **out)
{
    for (size_t i = 0; !err && i < query->order_count; i++)
        err = results_apply_order(txn, r, &query->orders[i]);
    if (err) {
        lar_results_free(r);
        return err;
    }
    record_version(txn, r);
    *out = r;
    return LAR_OK;
}

int lar_query_run(lar_txn *txn, lar_query *query, lar_results **out)
{
    if (out) *out = NULL;
    if (!query || !out) return lar_fail(LAR_EINVAL, "lar_query_run: query and out must not be NULL");
    const schema_class *cls;
    int err = query_check_runnable(txn, query, &cls);
    if (err) return err;
    lar_results *r = calloc(1, sizeof *r);
    if (!r) return lar_fail(LAR_ENOMEM, "out of memory running a query");
    r->env = txn->env;
    r->cls = query->cls;
    probe_term term;
    bool answered = false;
    if (query_one_equality(query, cls, &term)) err = probe_alone(txn, &term, r, &answered);
    if (!err && !answered) err = run_plan(txn, query, cls, r);
    return finish_run(txn, query, r, err, out);
}

int lar_query_run_keys(lar_txn *txn, lar_query *query, const lar_objkey *keys, size_t count, lar_results **out)
{
    if (out) *out = NULL;
    if (!query || !out || (!keys && count)) return lar_fail(LAR_EINVAL, "lar_query_run_keys: NULL argument");
    const schema_class *cls;
    int err = query_check_runnable(txn, query, &cls);
    if (err) return err;
    if (count > SIZE_MAX / sizeof *keys) return lar_fail(LAR_EINVAL, "lar_query_run_keys: %zu keys are too many", count);
    plan *p;
    if ((err = plan_compile(txn, query, &p))) return err;
    lar_results *r = calloc(1, sizeof *r);
    if (!r) {
        plan_free(p);
        return lar_fail(LAR_ENOMEM, "out of memory running a query on %zu objects", count);
    }
    r->env = txn->env;
    r->cls = query->cls;
    err = check_keys(txn, cls, p, keys, count, r);
    plan_free(p);
    return finish_run(txn, query, r, err, out);
}

int lar_results_count(const lar_results *results, size_t *out)
{
    if (!results || !out) return lar_fail(LAR_EINVAL, "lar_results_count: NULL argument");
    *out = results->count;
    return LAR_OK;
}

int lar_results_get(const lar_results *results, size_t index, lar_obj *out)
{
    if (!results || !out) return lar_fail(LAR_EINVAL, "lar_results_get: NULL argument");
    if (index >= results->count)
        return lar_fail(LAR_EINVAL, "lar_results_get: index %zu is out of range (the result has %zu objects)", index,
                        results->count);
    *out = (lar_obj){results->cls, results_key(results, index)};
    return LAR_OK;
}

int lar_results_keys(const lar_results *results, size_t start, lar_objkey *out, size_t capacity, size_t *count)
{
    if (count) *count = 0;
    if (!results || !out || !count) return lar_fail(LAR_EINVAL, "lar_results_keys: NULL argument");
    if (capacity == 0) return lar_fail(LAR_EINVAL, "lar_results_keys: capacity is 0");
    if (start > results->count)
        return lar_fail(LAR_EINVAL, "lar_results_keys: start %zu is past the end (the result has %zu objects)", start,
                        results->count);
    size_t n = results->count - start < capacity ? results->count - start : capacity;
    if (n == 0) return LAR_ENOTFOUND;
    if (results->blocks) key_blocks_copy(results->blocks, start, n, out);
    else memcpy(out, results->keys + start, n * sizeof *out);
    *count = n;
    return LAR_OK;
}

int lar_results_is_current(const lar_results *results, lar_txn *txn, int *out)
{
    if (!results || !out) return lar_fail(LAR_EINVAL, "lar_results_is_current: NULL argument");
    int err = txn_check(txn, false);
    if (err) return err;
    if (results->env != txn->env)
        return lar_fail(LAR_EINVAL, "lar_results_is_current: the result belongs to another environment");
    if (results->writer) *out = txn == results->writer && txn->mutations == results->mutations;
    else *out = !results->stale && !txn->write && kv_txn_id(txn) == results->snapshot;
    return LAR_OK;
}

int lar_iter_open_results(lar_txn *txn, const lar_results *results, lar_iter **out)
{
    if (out) *out = NULL;
    if (!results || !out) return lar_fail(LAR_EINVAL, "lar_iter_open_results: NULL argument");
    int err = txn_check(txn, false);
    if (err) return err;
    if (results->env != txn->env)
        return lar_fail(LAR_EINVAL, "lar_iter_open_results: the result belongs to another environment");
    static const lar_objkey none[1];
    if (!results->blocks)
        return iter_open_keys(txn, results->cls, results->count ? results->keys : none, results_rows(results, txn),
                              results->count, out);
    lar_objkey *keys = big_alloc(results->count * sizeof *keys); /* blocks hold at least one key */
    if (!keys) return lar_fail(LAR_ENOMEM, "out of memory opening an iterator");
    key_blocks_copy(results->blocks, 0, results->count, keys);
    err = iter_open_keys(txn, results->cls, keys, NULL, results->count, out);
    big_free(keys);
    return err;
}
