/* Aggregates over a lar_results: count, min, max, sum and average of the values a key
 * path reads, with realm-core's rules (aggregate_ops.hpp, Mixed::accumulate_numeric_to):
 *   - nulls are skipped, and so are NaN floats, doubles and decimal128s (except by count);
 *   - ints sum in 64 bits, wrapping on overflow as realm-core's int64_t sum does on every
 *     machine it runs on; floats and doubles sum in a double; decimal128s sum exactly
 *     (rounded to 34 digits); the average of ints, floats or doubles is a double (their
 *     sum taken in a double, over the count), of decimal128s a decimal128;
 *   - a mixed property: min and max take every value (but NaN decimal128s) in
 *     value_sort_order(); sum and average take the numbers, as decimal128s (a double NaN
 *     makes the sum NaN, as in realm-core), and yield a decimal128;
 *   - min, max and average of no values are null; a sum of none is zero;
 *   - min and max also take timestamps; count takes any scalar and counts its non-null values.
 * Several operations of one key path fold in one pass (lar_*_aggregates): an accumulator
 * keeps what each asked-for operation needs. */
#include "query/order.h"
#include "query/decimal128.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects whose values are read at once. */
#define CHUNK 8192

typedef struct accumulator {
    unsigned ops;             /* OP_BIT of each operation folded */
    lar_type type;            /* the property's */
    size_t count;             /* non-null values (count's) */
    size_t taken;             /* values summed: non-null, not NaN (of a mixed property, its numbers) */
    lar_value min, max;       /* null until a value is taken */
    uint64_t int_sum;         /* wraps */
    double double_sum;
    lar_decimal128 decimal_sum;
} accumulator;

#define OP_BIT(op) (1u << (op))
#define BEST_OPS (OP_BIT(LAR_AGGREGATE_MIN) | OP_BIT(LAR_AGGREGATE_MAX))
#define SUM_OPS (OP_BIT(LAR_AGGREGATE_SUM) | OP_BIT(LAR_AGGREGATE_AVERAGE))

static bool is_nan(const lar_value *v)
{
    switch (v->type) {
    case LAR_TYPE_FLOAT: return v->as.float32 != v->as.float32;
    case LAR_TYPE_DOUBLE: return v->as.float64 != v->as.float64;
    case LAR_TYPE_DECIMAL128: return decimal_is_nan(v->as.decimal128);
    default: return false;
    }
}

static bool is_number(lar_type t)
{
    return t == LAR_TYPE_INT || t == LAR_TYPE_FLOAT || t == LAR_TYPE_DOUBLE || t == LAR_TYPE_DECIMAL128;
}

static void take_best(accumulator *a, const lar_value *v)
{
    if ((a->ops & OP_BIT(LAR_AGGREGATE_MIN)) && (a->min.type == LAR_TYPE_NULL || value_sort_order(v, &a->min) < 0))
        a->min = *v;
    if ((a->ops & OP_BIT(LAR_AGGREGATE_MAX)) && (a->max.type == LAR_TYPE_NULL || value_sort_order(v, &a->max) > 0))
        a->max = *v;
}

static void take_mixed(accumulator *a, const lar_value *v)
{
    a->count++;
    if (v->type == LAR_TYPE_DECIMAL128 && is_nan(v)) return;
    if (a->ops & BEST_OPS) take_best(a, v);
    if ((a->ops & SUM_OPS) && is_number(v->type)) {
        a->decimal_sum = decimal_add(a->decimal_sum, decimal_of_number(v));
        a->taken++;
    }
}

static void take(accumulator *a, const lar_value *v)
{
    if (v->type == LAR_TYPE_NULL || v->type == VALUE_NULL_LINK) return;
    if (a->type == LAR_TYPE_MIXED) return take_mixed(a, v);
    a->count++;
    if (is_nan(v)) return;
    if (a->ops & BEST_OPS) take_best(a, v);
    if (!(a->ops & SUM_OPS)) return;
    a->taken++;
    switch (v->type) {
    case LAR_TYPE_INT:
        a->int_sum += (uint64_t)v->as.integer;
        a->double_sum += (double)v->as.integer;
        break;
    case LAR_TYPE_FLOAT: a->double_sum += (double)v->as.float32; break;
    case LAR_TYPE_DOUBLE: a->double_sum += v->as.float64; break;
    case LAR_TYPE_DECIMAL128: a->decimal_sum = decimal_add(a->decimal_sum, v->as.decimal128); break;
    default: break;
    }
}

static lar_value result(const accumulator *a, lar_aggregate_op op)
{
    lar_value out = {.type = LAR_TYPE_NULL};
    bool decimal = a->type == LAR_TYPE_DECIMAL128 || a->type == LAR_TYPE_MIXED;
    switch (op) {
    case LAR_AGGREGATE_COUNT:
        out.type = LAR_TYPE_INT;
        out.as.integer = (int64_t)a->count;
        break;
    case LAR_AGGREGATE_MIN: out = a->min; break;
    case LAR_AGGREGATE_MAX: out = a->max; break;
    case LAR_AGGREGATE_SUM:
        if (decimal) {
            out.type = LAR_TYPE_DECIMAL128;
            out.as.decimal128 = a->decimal_sum;
        } else if (a->type == LAR_TYPE_INT) {
            out.type = LAR_TYPE_INT;
            out.as.integer = (int64_t)a->int_sum; /* two's complement: the wrapped sum */
        } else {
            out.type = LAR_TYPE_DOUBLE;
            out.as.float64 = a->double_sum;
        }
        break;
    case LAR_AGGREGATE_AVERAGE:
        if (a->taken == 0) break;
        if (decimal) {
            out.type = LAR_TYPE_DECIMAL128;
            out.as.decimal128 = decimal_divide(a->decimal_sum, decimal_from_int((int64_t)a->taken));
        } else {
            out.type = LAR_TYPE_DOUBLE;
            out.as.float64 = a->double_sum / (double)a->taken;
        }
        break;
    }
    return out;
}

/* An accumulator folding the operations asked for, of values of type. */
static accumulator accumulator_of(unsigned ops, lar_type type)
{
    return (accumulator){.ops = ops, .type = type, .min = {.type = LAR_TYPE_NULL}, .max = {.type = LAR_TYPE_NULL},
                         .decimal_sum = decimal_zero()};
}

static const char *const op_names[] = {"", "count", "min", "max", "sum", "average"};

static bool op_takes(lar_aggregate_op op, lar_type t)
{
    if (op == LAR_AGGREGATE_COUNT || t == LAR_TYPE_MIXED || is_number(t)) return true;
    return t == LAR_TYPE_TIMESTAMP && (op == LAR_AGGREGATE_MIN || op == LAR_AGGREGATE_MAX);
}

/* "operation 'sum' not supported for string property 'Dog.name'", as Realm words it. */
static int unsupported(const key_path *path, lar_aggregate_op op)
{
    const schema_class *cls = path->classes[path->count - 1];
    return lar_fail(LAR_EINVAL, "operation '%s' not supported for %s property '%s.%s'", op_names[op],
                    type_name(path->type), cls->name, cls->properties[path->props[path->count - 1]].def.name);
}

/* Checks ops and out; out is cleared. The ops' bits into *mask. */
static int check_ops(const lar_aggregate_op *ops, size_t count, lar_value *out, const char *function, unsigned *mask)
{
    for (size_t i = 0; out && ops && i < count; i++) out[i] = (lar_value){.type = LAR_TYPE_NULL};
    if (!out || !ops) return lar_fail(LAR_EINVAL, "%s: %s is NULL", function, out ? "ops" : "out");
    if (count == 0) return lar_fail(LAR_EINVAL, "%s: no operation", function);
    *mask = 0;
    for (size_t i = 0; i < count; i++) {
        if (ops[i] < LAR_AGGREGATE_COUNT || ops[i] > LAR_AGGREGATE_AVERAGE)
            return lar_fail(LAR_EINVAL, "%s: unknown operation %d", function, (int)ops[i]);
        *mask |= OP_BIT(ops[i]);
    }
    return LAR_OK;
}

/* The key path of an aggregate on class cls, checked to be one every op takes. */
static int aggregate_path(lar_txn *txn, lar_env *env, lar_class cls, const char *keypath,
                          const lar_aggregate_op *ops, size_t count, key_path *path)
{
    int rc = key_path_parse(txn, env, cls, keypath, op_names[ops[0]], path);
    for (size_t i = 0; i < count && rc == LAR_OK; i++)
        if (!op_takes(ops[i], path->type)) rc = unsupported(path, ops[i]);
    return rc;
}

/* Whether keypath may be NULL: every op counts the objects. */
static bool counts_objects(const char *keypath, const lar_aggregate_op *ops, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (ops[i] != LAR_AGGREGATE_COUNT) return false;
    return !keypath;
}

/* The folded values into out, once the fold ended with rc. */
static int finish(lar_txn *txn, const accumulator *a, const lar_aggregate_op *ops, size_t count, int rc, lar_value *out)
{
    for (size_t i = 0; i < count && rc == LAR_OK; i++) {
        lar_value folded = result(a, ops[i]);
        /* A min or max string of a mixed property, read raw: kept as lar_obj_get() keeps it. */
        if (txn->write && value_keep_bytes(txn, &folded) != LAR_OK) rc = lar_fail(LAR_ENOMEM, "out of memory");
        out[i] = folded;
    }
    for (size_t i = 0; i < count && rc != LAR_OK; i++) out[i] = (lar_value){.type = LAR_TYPE_NULL};
    return rc;
}

/* lar_results_aggregates, its errors naming function. */
static int results_fold(lar_txn *txn, const lar_results *results, const char *keypath, const lar_aggregate_op *ops,
                        size_t count, lar_value *out, const char *function)
{
    unsigned mask;
    int rc = check_ops(ops, count, out, function, &mask);
    if (rc == LAR_OK) rc = results_check(txn, results, function);
    if (rc != LAR_OK) return rc;
    if (counts_objects(keypath, ops, count)) {
        for (size_t i = 0; i < count; i++) out[i] = (lar_value){.type = LAR_TYPE_INT, .as.integer = (int64_t)results->count};
        return LAR_OK;
    }
    key_path path;
    rc = aggregate_path(txn, results->env, results->cls, keypath, ops, count, &path);
    if (rc != LAR_OK) return rc;
    accumulator a = accumulator_of(mask, path.type);
    /* Read a chunk at a time in key order; fold in result order (sums of doubles depend on it). */
    lar_value *values = malloc((results->count < CHUNK ? results->count : CHUNK) * sizeof *values + 1);
    if (!values) return lar_fail(LAR_ENOMEM, "out of memory");
    const kv_val *rows = results_rows(results, txn);
    for (size_t start = 0, n = 0; start < results->count && rc == LAR_OK; start += n) {
        n = results->count - start < CHUNK ? results->count - start : CHUNK;
        const lar_objkey *keys = rows ? NULL : results_run(results, start, &n); /* rows: keys in one array */
        rc = rows ? key_path_read_rows(txn, &path, rows + start, n, values, 1)
                  : key_path_read_many(txn, &path, keys, n, values, 1);
        for (size_t i = 0; i < n && rc == LAR_OK; i++) take(&a, &values[i]);
    }
    free(values);
    return finish(txn, &a, ops, count, rc, out);
}

int lar_results_aggregates(lar_txn *txn, const lar_results *results, const char *keypath,
                           const lar_aggregate_op *ops, size_t count, lar_value *out)
{
    return results_fold(txn, results, keypath, ops, count, out, "lar_results_aggregates");
}

int lar_results_aggregate(lar_txn *txn, const lar_results *results, const char *keypath, lar_aggregate_op op,
                          lar_value *out)
{
    return results_fold(txn, results, keypath, &op, 1, out, "lar_results_aggregate");
}

/* The sink of lar_query_run_aggregate: each match's value folded as it is scanned. */
typedef struct fold_sink {
    row_sink base;
    lar_txn *txn;
    const key_path *path; /* NULL: count the objects */
    accumulator a;
    /* A path of one int, double or float property of the queried class: read in place. */
    bool in_place;
    uint32_t offset, null_byte;
    uint8_t null_mask;    /* 0: never null */
} fold_sink;

/* An int property's sum, average, min and max, the bulk of aggregates, without a value per row. */
static void fold_ints(fold_sink *f, const kv_val *rows, size_t count)
{
    uint64_t sum = f->a.int_sum;
    double real = f->a.double_sum; /* added to in order, as take() adds */
    size_t taken = 0;
    int64_t least = INT64_MAX, greatest = INT64_MIN;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *bytes = rows[i].mv_data;
        if (bytes[f->null_byte] & f->null_mask) continue;
        int64_t v;
        memcpy(&v, bytes + f->offset, sizeof v);
        sum += (uint64_t)v;
        real += (double)v;
        least = v < least ? v : least;
        greatest = v > greatest ? v : greatest;
        taken++;
    }
    f->a.int_sum = sum;
    f->a.double_sum = real;
    f->a.count += taken;
    f->a.taken += taken;
    if (taken == 0 || !(f->a.ops & BEST_OPS)) return;
    take_best(&f->a, &(lar_value){.type = LAR_TYPE_INT, .as.integer = least});
    take_best(&f->a, &(lar_value){.type = LAR_TYPE_INT, .as.integer = greatest});
}

/* Any other operation of an in-place property: its slot read as a value. */
static void fold_slots(fold_sink *f, const kv_val *rows, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const uint8_t *bytes = rows[i].mv_data;
        if (bytes[f->null_byte] & f->null_mask) continue;
        lar_value v = {.type = f->a.type};
        const uint8_t *slot = bytes + f->offset;
        if (v.type == LAR_TYPE_INT) memcpy(&v.as.integer, slot, 8);
        else if (v.type == LAR_TYPE_DOUBLE) memcpy(&v.as.float64, slot, 8);
        else memcpy(&v.as.float32, slot, 4);
        take(&f->a, &v);
    }
}

static int fold_rows(row_sink *self, const lar_objkey *keys, const kv_val *rows, size_t count)
{
    (void)keys;
    fold_sink *f = (fold_sink *)self;
    if (!f->path) {
        f->a.count += count;
        return LAR_OK;
    }
    if (f->in_place) {
        if (f->a.type == LAR_TYPE_INT) fold_ints(f, rows, count);
        else fold_slots(f, rows, count);
        return LAR_OK;
    }
    for (size_t i = 0; i < count; i++) {
        lar_value v;
        int rc = key_path_read_row(f->txn, f->path, &rows[i], &v);
        if (rc != LAR_OK) return rc;
        take(&f->a, &v);
    }
    return LAR_OK;
}

/* Whether path's value is read straight from the slot of the rows a scan of cls hands
 * over: one property of cls, an int, double or float (rows of cls have its slot). */
static void plan_in_place(fold_sink *f, const key_path *path, const schema_class *cls)
{
    lar_type t = path->type;
    if (path->count != 1 || path->classes[0] != cls || (t != LAR_TYPE_INT && t != LAR_TYPE_DOUBLE && t != LAR_TYPE_FLOAT))
        return;
    const schema_property *prop = &cls->properties[path->props[0]];
    if (prop->def.collection != LAR_COLLECTION_NONE) return;
    f->in_place = true;
    f->offset = prop->slot_offset;
    if (cls->has_optional) {
        f->null_byte = cls->fixed_size + path->props[0] / 8;
        f->null_mask = (uint8_t)(1u << (path->props[0] % 8));
    }
}

/* lar_query_run_aggregates of a query a scan runs: no result is collected. */
static int fold_scan(lar_txn *txn, lar_query *query, const schema_class *cls, const char *keypath,
                     const lar_aggregate_op *ops, size_t count, unsigned mask, lar_value *out, bool *scanned)
{
    key_path path;
    fold_sink f = {.base = {fold_rows}, .txn = txn, .a = accumulator_of(mask, LAR_TYPE_INT)};
    if (!counts_objects(keypath, ops, count)) {
        int rc = aggregate_path(txn, query->env, query->cls, keypath, ops, count, &path);
        if (rc != LAR_OK) return rc;
        f.path = &path;
        f.a.type = path.type;
        plan_in_place(&f, &path, cls);
    }
    int rc = query_scan_matches(txn, query, cls, &f.base, scanned);
    return *scanned ? finish(txn, &f.a, ops, count, rc, out) : rc;
}

/* lar_query_run_aggregates, its errors naming function. */
static int query_fold(lar_txn *txn, lar_query *query, const char *keypath, const lar_aggregate_op *ops, size_t count,
                      lar_value *out, const char *function)
{
    unsigned mask;
    int rc = check_ops(ops, count, out, function, &mask);
    if (rc != LAR_OK) return rc;
    if (!query) return lar_fail(LAR_EINVAL, "%s: query is NULL", function);
    const schema_class *cls;
    if ((rc = query_check_runnable(txn, query, &cls)) != LAR_OK) return rc;
    /* A write's rows may move while a fold reads other tables, and a min or max keeps a
     * pointer into the row it came from: a write folds a collected result instead. */
    bool scanned = false;
    if (!txn->write && (rc = fold_scan(txn, query, cls, keypath, ops, count, mask, out, &scanned)) != LAR_OK) return rc;
    if (scanned) return LAR_OK;
    lar_results *results;
    if ((rc = lar_query_run(txn, query, &results)) != LAR_OK) return rc;
    rc = results_fold(txn, results, keypath, ops, count, out, function);
    lar_results_free(results);
    return rc;
}

int lar_query_run_aggregates(lar_txn *txn, lar_query *query, const char *keypath, const lar_aggregate_op *ops,
                             size_t count, lar_value *out)
{
    return query_fold(txn, query, keypath, ops, count, out, "lar_query_run_aggregates");
}

int lar_query_run_aggregate(lar_txn *txn, lar_query *query, const char *keypath, lar_aggregate_op op, lar_value *out)
{
    return query_fold(txn, query, keypath, &op, 1, out, "lar_query_run_aggregate");
}
