/* Comparing values as queries do: numbers by value across int, float, double and
 * decimal128 (as realm-core's Mixed does), everything else within its own type. */
#include "query/results.h"
#include "query/decimal128.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static int sign_of(int c)
{
    return (c > 0) - (c < 0);
}

/* ---- numbers ---- */

bool value_is_number(lar_type t)
{
    return t == LAR_TYPE_INT || t == LAR_TYPE_FLOAT || t == LAR_TYPE_DOUBLE || t == LAR_TYPE_DECIMAL128;
}

double value_as_double(const lar_value *v)
{
    switch (v->type) {
    case LAR_TYPE_INT: return (double)v->as.integer;
    case LAR_TYPE_FLOAT: return v->as.float32;
    case LAR_TYPE_DECIMAL128: return decimal_to_double(v->as.decimal128);
    default: return v->as.float64;
    }
}

/* An int against a double, exactly (a plain conversion would round large ints). */
static int int_double_order(int64_t i, double d)
{
    if (d != d) return ORDER_NONE;
    if (d >= 9223372036854775808.0) return -1;
    if (d < -9223372036854775808.0) return 1;
    int64_t whole = (int64_t)d;
    if (i != whole) return i < whole ? -1 : 1;
    double fraction = d - (double)whole;
    return fraction > 0 ? -1 : fraction < 0;
}

static int number_order(const lar_value *a, const lar_value *b)
{
    if (a->type == LAR_TYPE_INT && b->type == LAR_TYPE_INT)
        return a->as.integer < b->as.integer ? -1 : a->as.integer > b->as.integer;
    if (a->type == LAR_TYPE_DECIMAL128 || b->type == LAR_TYPE_DECIMAL128) {
        /* As realm-core: the other number converted to a decimal128 (a double at 15
         * significant digits, a float at 7), then compared by value; NaN has no order. */
        lar_decimal128 x = decimal_of_number(a), y = decimal_of_number(b);
        if (decimal_is_nan(x) || decimal_is_nan(y)) return ORDER_NONE;
        return decimal_compare(x, y);
    }
    if (a->type == LAR_TYPE_INT) return int_double_order(a->as.integer, value_as_double(b));
    if (b->type == LAR_TYPE_INT) {
        int o = int_double_order(b->as.integer, value_as_double(a));
        return o == ORDER_NONE ? o : -o;
    }
    double x = value_as_double(a), y = value_as_double(b);
    if (x != x || y != y) return ORDER_NONE;
    return x < y ? -1 : x > y;
}

/* ---- the rest ---- */

static int bytes_order(const void *a, size_t an, const void *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? sign_of(c) : (an > bn) - (an < bn);
}

/* Strings and binaries order by their bytes; a string and a binary are different kinds
 * (as in Realm 20's mixed values: the evaluator gives a string compared with a binary
 * property the binary type first). */
bool value_bytes(const lar_value *v, const char **data, size_t *size)
{
    if (v->type == LAR_TYPE_STRING) *data = v->as.string.data, *size = v->as.string.size;
    else if (v->type == LAR_TYPE_BINARY) *data = v->as.binary.data, *size = v->as.binary.size;
    else return false;
    if (!*data) *data = "";
    return true;
}

int value_order(const lar_value *a, const lar_value *b)
{
    if (value_is_number(a->type) && value_is_number(b->type)) return number_order(a, b);
    const char *x, *y;
    size_t xn, yn;
    if (a->type == b->type && value_bytes(a, &x, &xn) && value_bytes(b, &y, &yn)) return bytes_order(x, xn, y, yn);
    if (a->type != b->type) return ORDER_NONE;
    switch (a->type) {
    case LAR_TYPE_BOOL: return (a->as.boolean != 0) - (b->as.boolean != 0);
    case LAR_TYPE_TIMESTAMP:
        if (a->as.timestamp.seconds != b->as.timestamp.seconds)
            return a->as.timestamp.seconds < b->as.timestamp.seconds ? -1 : 1;
        return (a->as.timestamp.nanoseconds > b->as.timestamp.nanoseconds) -
               (a->as.timestamp.nanoseconds < b->as.timestamp.nanoseconds);
    case LAR_TYPE_OBJECT_ID: return bytes_order(a->as.object_id.bytes, 12, b->as.object_id.bytes, 12);
    case LAR_TYPE_UUID: return bytes_order(a->as.uuid.bytes, 16, b->as.uuid.bytes, 16);
    default: return ORDER_NONE; /* null, links, nested collections: equality only */
    }
}

bool value_matches(const lar_value *a, const lar_value *b)
{
    if (a->type == LAR_TYPE_NULL || b->type == LAR_TYPE_NULL) return a->type == b->type;
    if (a->type == LAR_TYPE_LINK || b->type == LAR_TYPE_LINK)
        return a->type == b->type && a->as.link.cls == b->as.link.cls && a->as.link.key == b->as.link.key;
    if (a->type == LAR_TYPE_LIST || a->type == LAR_TYPE_DICTIONARY || b->type == LAR_TYPE_LIST ||
        b->type == LAR_TYPE_DICTIONARY)
        return false; /* a nested collection equals no value */
    return value_order(a, b) == 0;
}

static bool named(const lar_value *name, const char *text)
{
    return strlen(text) == name->as.string.size && strncasecmp(text, name->as.string.data, name->as.string.size) == 0;
}

bool type_name_matches(const lar_value *v, const lar_value *name)
{
    if (name->type != LAR_TYPE_STRING) return false;
    switch (v->type) {
    case LAR_TYPE_NULL: return named(name, "null");
    case LAR_TYPE_INT: return named(name, "int") || named(name, "numeric");
    case LAR_TYPE_BOOL: return named(name, "bool");
    case LAR_TYPE_FLOAT: return named(name, "float") || named(name, "numeric");
    case LAR_TYPE_DOUBLE: return named(name, "double") || named(name, "numeric");
    case LAR_TYPE_DECIMAL128:
        return named(name, "decimal128") || named(name, "decimal") || named(name, "numeric");
    case LAR_TYPE_STRING: return named(name, "string");
    case LAR_TYPE_BINARY: return named(name, "binary") || named(name, "data");
    case LAR_TYPE_TIMESTAMP: return named(name, "timestamp") || named(name, "date");
    case LAR_TYPE_OBJECT_ID: return named(name, "objectid");
    case LAR_TYPE_UUID: return named(name, "uuid");
    case LAR_TYPE_LINK: return named(name, "link") || named(name, "object") || named(name, "objectlink");
    case LAR_TYPE_LIST: return named(name, "list") || named(name, "array");
    case LAR_TYPE_DICTIONARY: return named(name, "dictionary");
    default: return false;
    }
}
