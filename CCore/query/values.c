/* Queries over plain values: the elements of a list, set or map of ints, strings, mixed
 * values ..., each named `self` (`self > 5`, `self BEGINSWITH[c] 'a'`, `self.@type ==
 * 'string'`), as Realm queries its collections of primitives.
 *
 * Such a query has a class of its own, never stored: one property, `self`, of the values'
 * type (QUERY_VALUES_CLASS). The parser, the resolver and the compiler then treat it as
 * any class, and each value is tested as a one-property row of that class, so every
 * operator, option and argument works on values as on properties. */
#include "query/plan.h"

#include <stdio.h>
#include <stdlib.h>

static bool values_type_ok(lar_type type)
{
    switch (type) {
    case LAR_TYPE_INT: case LAR_TYPE_BOOL: case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE:
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY: case LAR_TYPE_TIMESTAMP: case LAR_TYPE_OBJECT_ID:
    case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128: case LAR_TYPE_MIXED:
        return true;
    default:
        return false;
    }
}

/* A query over values of type (optional: null is one of them) on env, its class made. */
static int values_query_new(const char *caller, lar_env *env, lar_type type, bool optional, lar_query **out)
{
    if (!env) return lar_fail(LAR_EINVAL, "%s: NULL argument", caller);
    if (!values_type_ok(type))
        return lar_fail(LAR_EINVAL, "%s: values of type %s (%d) cannot be queried: give a scalar type or "
                        "LAR_TYPE_MIXED (collections of objects are queried by their class)",
                        caller, type_name(type), (int)type);
    lar_query *q = calloc(1, sizeof *q);
    if (q) q->values = malloc(sizeof *q->values);
    if (!q || !q->values) {
        free(q);
        return lar_fail(LAR_ENOMEM, "out of memory");
    }
    /* Mixed values are never optional: null is one of them. */
    unsigned flags = optional && type != LAR_TYPE_MIXED ? LAR_PROP_OPTIONAL : 0;
    lar_property_def self = {.name = "self", .type = type, .flags = flags};
    lar_class_def def = {.name = "values", .properties = &self, .property_count = 1};
    int err = class_from_def(&def, q->values);
    if (err) {
        free(q->values);
        free(q);
        return err;
    }
    q->env = env;
    q->cls = QUERY_VALUES_CLASS;
    *out = q;
    return LAR_OK;
}

void query_values_free(lar_query *q)
{
    if (!q->values) return;
    class_clear(q->values);
    free(q->values);
    q->values = NULL;
}

int lar_query_parse_values(lar_env *env, lar_type type, int optional, const char *text, lar_query **out)
{
    if (out) *out = NULL;
    if (!text || !out) return lar_fail(LAR_EINVAL, "lar_query_parse_values: NULL argument");
    lar_query *q;
    int err = values_query_new("lar_query_parse_values", env, type, optional != 0, &q);
    return err ? err : query_parse_new(q, text, out);
}

int lar_query_new_values(lar_env *env, lar_type type, int optional, lar_query **out)
{
    if (out) *out = NULL;
    if (!out) return lar_fail(LAR_EINVAL, "lar_query_new_values: NULL argument");
    lar_query *q;
    int err = values_query_new("lar_query_new_values", env, type, optional != 0, &q);
    return err ? err : query_build_new(q, out);
}

/* Checks value i against the query's class and encodes it as a row of it into row. */
static int encode_value(lar_txn *txn, const schema_class *cls, const lar_value *value, size_t i, byte_buffer *row)
{
    int err = value_check_element(cls, 0, value);
    if (err) {
        char why[512];
        snprintf(why, sizeof why, "%s", lar_error_last()->message);
        return lar_fail(err, "value %zu: %s", i, why);
    }
    lar_value v = value_normalize(&cls->properties[0].def, value);
    if (v.type == LAR_TYPE_LINK && !schema_class_at(txn->schema, v.as.link.cls))
        return lar_fail(LAR_EINVAL, "value %zu: a link to class %u, which is not in the schema", i,
                        (unsigned)v.as.link.cls);
    /* A nested collection is matched by its type alone: the query reads nothing of it,
     * so any id a row may hold (not 0) stands for the caller's. */
    if (v.type == LAR_TYPE_LIST || v.type == LAR_TYPE_DICTIONARY) v.as.nested = 1;
    return row_encode(cls, &v, row);
}

int lar_query_match_values(lar_txn *txn, const lar_query *query, const lar_value *items, size_t count,
                           unsigned char *matches)
{
    if (!txn || !query || ((!items || !matches) && count))
        return lar_fail(LAR_EINVAL, "lar_query_match_values: NULL argument");
    if (!query->values)
        return lar_fail(LAR_EINVAL, "lar_query_match_values: the query is over objects of a class; run it with "
                        "lar_query_run()");
    int err = query_check_ready(txn, query);
    if (err) return err;
    plan *p;
    if ((err = plan_compile(txn, query, &p))) return err;
    byte_buffer row = {0};
    for (size_t i = 0; i < count && !err; i++) {
        if ((err = encode_value(txn, p->cls, &items[i], i, &row))) break;
        kv_val encoded = {row.size, row.data};
        int hit = plan_match_inline(p, 0, &encoded);
        if (hit < 0) err = hit;
        else matches[i] = (unsigned char)hit;
    }
    buffer_free(&row);
    plan_free(p);
    return err;
}
