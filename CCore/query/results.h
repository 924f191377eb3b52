/* Layer query: a query's result, the keys of the objects it selected, in order. */
#ifndef LARDER_RESULTS_H
#define LARDER_RESULTS_H

#include "query/key_blocks.h"
#include "query/query.h"

struct lar_results {
    lar_env *env;
    lar_class cls;
    lar_objkey *keys;      /* big_alloc'd (base.h): count used of capacity, in result order; NULL in blocks */
    size_t count, capacity;
    /* The keys in blocks, once lar_results_update() changed them in place (so that the next
     * change costs a block's memmove, not the result's); else NULL. Read them through
     * results_key() and results_run(); results_flatten() makes them one array again. */
    key_blocks *blocks;
    /* The version the keys were computed at (lar_results_is_current): a read snapshot's
     * id, or the write transaction they were computed in and its mutation count then.
     * The write is followed as a dependent, so its end (or renewal) marks them stale. */
    txn_dependent link;
    uint64_t snapshot;     /* kv_txn_id() of the transaction */
    lar_txn *writer;       /* the write transaction, while it lives; NULL for a snapshot */
    uint64_t mutations;    /* writer->mutations when computed */
    bool stale;            /* computed in a write that has ended */
    /* In a read transaction, each key's row as the run read it (count of them, in result
     * order), so that a walk or a sort of the result in the same transaction reads them
     * without a B-tree search each; NULL when not known. Valid while the transaction of
     * generation rows_generation lives (results_rows). */
    kv_val *rows;
    uint64_t rows_generation;
};

/* Stamps r with txn's version (lar_results_is_current); in a write, r follows it. */
void record_version(lar_txn *txn, lar_results *r);
/* r's rows when they are valid in txn (the transaction that read them, still in the same
 * snapshot), else NULL. */
static inline const kv_val *results_rows(const lar_results *r, const lar_txn *txn)
{
    return r->rows && txn->generation == r->rows_generation && txn->state == TXN_ACTIVE ? r->rows : NULL;
}
/* Drops r's rows: its keys are about to change other than by sort, distinct or limit. */
void results_forget_rows(lar_results *r);

/* The key at position i (< r->count). */
static inline lar_objkey results_key(const lar_results *r, size_t i)
{
    return r->blocks ? key_blocks_at(r->blocks, i) : r->keys[i];
}
/* The keys from position start (< r->count) that lie in one array: at most *n, and *n
 * set to how many. */
static inline const lar_objkey *results_run(const lar_results *r, size_t start, size_t *n)
{
    if (!r->blocks) return r->keys + start;
    size_t run;
    const lar_objkey *keys = key_blocks_run(r->blocks, start, &run);
    if (run < *n) *n = run;
    return keys;
}
/* Puts r's keys in blocks (no rows kept), or in one array again: LAR_OK, or LAR_ENOMEM
 * with r unchanged. */
int results_to_blocks(lar_results *r);
int results_flatten(lar_results *r);
/* Keeps r's first count keys (count <= r->count). */
void results_truncate(lar_results *r, size_t count);

/* Where the objects a query matches go, in key order, a batch at a time: collected as
 * keys (lar_query_run) or folded (lar_query_run_aggregate). rows[i] is the row of
 * keys[i], of a shape row_shape_ok() accepts; take returns LAR_OK or an error, which
 * stops the run. */
typedef struct row_sink {
    int (*take)(struct row_sink *self, const lar_objkey *keys, const kv_val *rows, size_t count);
} row_sink;

/* Checks that query can run in txn (txn active, same environment, finished, every
 * argument bound): LAR_OK, or the error it recorded. */
int query_check_ready(lar_txn *txn, const lar_query *query);
/* The same for a query over objects, and gives its class. */
int query_check_runnable(lar_txn *txn, const lar_query *query, const schema_class **cls);
/* Hands sink every object of query's class its predicate matches, by one scan of the
 * class's table, when a scan is what would run it: *scanned is false, and nothing is
 * read, when an index answers a term or the query has a SORT, DISTINCT or LIMIT. */
int query_scan_matches(lar_txn *txn, const lar_query *query, const schema_class *cls, row_sink *sink,
                       bool *scanned);

/* ---- evaluation (eval.c) ---- */

/* A query compiled for one transaction: a tree of checks over rows. */
typedef struct plan plan;
/* Compiles q (resolved, every argument bound) against txn's schema. LAR_EINVAL names a
 * construct the evaluator does not run yet ("not supported yet: ..."). */
int plan_compile(lar_txn *txn, const lar_query *q, plan **out);
void plan_free(plan *p);
/* Whether p's checks read more than the row they check (key paths, other objects). */
bool plan_reads_other_rows(const plan *p);
/* Whether the object key of cls, whose row is row, matches: 1, 0, or an error (< 0). */
int plan_match(plan *p, lar_objkey key, const kv_val *row);
/* Whether p matches every object whose row is sound (TRUEPREDICATE): no check to run. */
bool plan_matches_all(const plan *p);
/* A comparison an index can answer: a primary key or indexed property against constants. */
typedef struct probe_term {
    uint32_t prop;
    bool primary;
    cmp_op op;             /* OP_EQ, OP_IN (values: the constants), OP_LT ... OP_GE, OP_BETWEEN */
    const lar_value *values;
    size_t count;
} probe_term;
#define PROBE_TERMS_MAX 16
/* The terms whose index entries name every object the predicate can match: one term
 * of a top-level AND (or the predicate itself), or every term of a top-level OR when
 * each is one. Fills out (room PROBE_TERMS_MAX); returns how many (0: scan). */
size_t plan_probe_terms(const plan *p, probe_term *out);
/* Whether q (resolved, bound, of class cls) is one equality of a property of cls with a
 * value that its index or primary key answers: read from its AST, without a plan. */
bool query_one_equality(const lar_query *q, const schema_class *cls, probe_term *out);
/* Whether the terms plan_probe_terms() gave are the whole predicate (no other check). */
bool plan_terms_are_whole(const plan *p);

/* ---- index probes (probe.c) ---- */

/* The objects of cls that may satisfy any of the terms, in key order without repeats
 * (big_alloc'd into *out). *exact: each is an equality whose index keys hold its values
 * whole, so the candidates satisfy exactly the terms. */
int probe_candidates(lar_txn *txn, lar_class cls, const probe_term *terms, size_t term_count, lar_objkey **out,
                     size_t *count, bool *exact);

/* ---- comparing values (compare.c) ---- */

#define ORDER_NONE 2  /* value_order(): the values have no order (kinds differ, NaN, null) */
/* -1, 0 or 1 as a is below, equal to or above b; numbers compare by value across int,
 * float, double and decimal128; ORDER_NONE when they cannot be ordered. */
int value_order(const lar_value *a, const lar_value *b);
/* Realm's ==: null equals only null; numbers by value; strings and binaries by bytes;
 * links by class and key. */
bool value_matches(const lar_value *a, const lar_value *b);
/* Whether v's type is named by name ('int', 'numeric', 'string', ...: see resolve.c). */
bool type_name_matches(const lar_value *v, const lar_value *name);
bool value_is_number(lar_type t); /* int, float, double, decimal128 */
double value_as_double(const lar_value *v); /* a number's nearest double */
/* A string's or binary's bytes (never NULL); false for other values. */
bool value_bytes(const lar_value *v, const char **data, size_t *size);

/* ---- strings (fold.c) ---- */

/* Writes s folded for options (OPT_CASE, OPT_DIACRITIC) into out, as UTF-8. */
int text_fold(const char *s, size_t n, unsigned options, byte_buffer *out);
/* BEGINSWITH, ENDSWITH, CONTAINS, LIKE, EQ on bytes already folded. */
bool text_match(cmp_op op, const char *h, size_t hn, const char *needle, size_t nn);

#endif
