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
 *   - min and max also take timestamps; count takes any scalar and counts its non-null values. */
#include "query/order.h"
#include "query/decimal128.h"

#include <stdio.h>
#include <stdlib.h>

/* Objects whose values are read at once. */
#define CHUNK 8192

typedef struct accumulator {
    lar_aggregate_op op;
    lar_type type;            /* the property's */
    size_t count;             /* values taken */
    lar_value best;           /* min, max: null until a value is taken */
    uint64_t int_sum;         /* wraps */
    double double_sum;
    lar_decimal128 decimal_sum;
} accumulator;

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
    int c = a->best.type == LAR_TYPE_NULL ? 0 : value_sort_order(v, &a->best);
    if (a->best.type == LAR_TYPE_NULL || (a->op == LAR_AGGREGATE_MIN ? c < 0 : c > 0)) a->best = *v;
}

static void take_mixed(accumulator *a, const lar_value *v)
{
    if (a->op == LAR_AGGREGATE_COUNT) {
        a->count++;
    } else if (a->op == LAR_AGGREGATE_MIN || a->op == LAR_AGGREGATE_MAX) {
        if (!(v->type == LAR_TYPE_DECIMAL128 && is_nan(v))) take_best(a, v);
    } else if (is_number(v->type) && !(v->type == LAR_TYPE_DECIMAL128 && is_nan(v))) {
        a->decimal_sum = decimal_add(a->decimal_sum, decimal_of_number(v));
        a->count++;
    }
}

static void take(accumulator *a, const lar_value *v)
{
    if (v->type == LAR_TYPE_NULL || v->type == VALUE_NULL_LINK) return;
    if (a->type == LAR_TYPE_MIXED) return take_mixed(a, v);
    if (a->op != LAR_AGGREGATE_COUNT && is_nan(v)) return;
    a->count++;
    switch (a->op) {
    case LAR_AGGREGATE_MIN: case LAR_AGGREGATE_MAX:
        take_best(a, v);
        break;
    case LAR_AGGREGATE_SUM: case LAR_AGGREGATE_AVERAGE:
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
        break;
    default:
        break;
    }
}

static lar_value result(const accumulator *a)
{
    lar_value out = {.type = LAR_TYPE_NULL};
    bool decimal = a->type == LAR_TYPE_DECIMAL128 || a->type == LAR_TYPE_MIXED;
    switch (a->op) {
    case LAR_AGGREGATE_COUNT:
        out.type = LAR_TYPE_INT;
        out.as.integer = (int64_t)a->count;
        break;
    case LAR_AGGREGATE_MIN: case LAR_AGGREGATE_MAX:
        out = a->best;
        break;
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
        if (a->count == 0) break;
        if (decimal) {
            out.type = LAR_TYPE_DECIMAL128;
            out.as.decimal128 = decimal_divide(a->decimal_sum, decimal_from_int((int64_t)a->count));
        } else {
            out.type = LAR_TYPE_DOUBLE;
            out.as.float64 = a->double_sum / (double)a->count;
        }
        break;
    }
    return out;
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

int lar_results_aggregate(lar_txn *txn, const lar_results *results, const char *keypath, lar_aggregate_op op,
                          lar_value *out)
{
    if (out) *out = (lar_value){.type = LAR_TYPE_NULL};
    if (!out) return lar_fail(LAR_EINVAL, "lar_results_aggregate: out is NULL");
    if (op < LAR_AGGREGATE_COUNT || op > LAR_AGGREGATE_AVERAGE)
        return lar_fail(LAR_EINVAL, "lar_results_aggregate: unknown operation %d", (int)op);
    int rc = results_check(txn, results, "lar_results_aggregate");
    if (rc != LAR_OK) return rc;
    if (op == LAR_AGGREGATE_COUNT && !keypath) {
        *out = (lar_value){.type = LAR_TYPE_INT, .as.integer = (int64_t)results->count};
        return LAR_OK;
    }
    char verb[32];
    snprintf(verb, sizeof verb, "%s", op_names[op]);
    key_path path;
    rc = key_path_parse(txn, results->env, results->cls, keypath, verb, &path);
    if (rc != LAR_OK) return rc;
    if (!op_takes(op, path.type)) return unsupported(&path, op);
    accumulator a = {.op = op, .type = path.type, .best = {.type = LAR_TYPE_NULL}, .decimal_sum = decimal_zero()};
    /* Read a chunk at a time in key order; fold in result order (sums of doubles depend on it). */
    lar_value *values = malloc((results->count < CHUNK ? results->count : CHUNK) * sizeof *values + 1);
    if (!values) return lar_fail(LAR_ENOMEM, "out of memory");
    for (size_t start = 0; start < results->count && rc == LAR_OK; start += CHUNK) {
        size_t n = results->count - start < CHUNK ? results->count - start : CHUNK;
        rc = key_path_read_many(txn, &path, results->keys + start, n, values, 1);
        for (size_t i = 0; i < n && rc == LAR_OK; i++) take(&a, &values[i]);
    }
    free(values);
    lar_value folded = result(&a);
    /* A min or max string of a mixed property, read raw: kept as lar_obj_get() keeps it. */
    if (rc == LAR_OK && txn->write && value_keep_bytes(txn, &folded) != LAR_OK) rc = lar_fail(LAR_ENOMEM, "out of memory");
    if (rc == LAR_OK) *out = folded;
    return rc;
}
