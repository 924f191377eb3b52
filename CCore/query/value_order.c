/* realm-core's order of values (Mixed::compare, realm-core 14), which sorting, distinct,
 * min and max share:
 *   - null before everything;
 *   - values of different kinds by kind: bool < numbers < string < binary < timestamp
 *     < ObjectId < UUID < link (< nested list < nested dictionary: Larder's, as realm-core
 *     does not sort those);
 *   - numbers by value across int, float, double and decimal128; a NaN before every
 *     other number; an int and a double compared exactly (2^53 + 1 > 2^53 as a double);
 *     a decimal128 with another number as realm-core does, converting that number
 *     to a decimal128 (a double rounded to 15 significant digits, a float to 7);
 *   - strings by Unicode code point, which is their UTF-8 bytes compared unsigned
 *     (realm-core 14: "ABZabz", no longer "aAbBzZ"); a prefix before the longer string;
 *   - binaries by bytes, timestamps by time, ObjectIds and UUIDs by bytes, links by
 *     class and key, false before true. */
#include "query/order.h"
#include "query/decimal128.h"

#include <string.h>

static int sign(int c)
{
    return (c > 0) - (c < 0);
}

static int kind_rank(lar_type t)
{
    switch (t) {
    case LAR_TYPE_BOOL: return 0;
    case LAR_TYPE_INT: case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE: case LAR_TYPE_DECIMAL128: return 1;
    case LAR_TYPE_STRING: return 2;
    case LAR_TYPE_BINARY: return 3;
    case LAR_TYPE_TIMESTAMP: return 4;
    case LAR_TYPE_OBJECT_ID: return 5;
    case LAR_TYPE_UUID: return 6;
    case LAR_TYPE_LINK: return 7;
    case LAR_TYPE_LIST: return 8;
    default: return 9; /* LAR_TYPE_DICTIONARY */
    }
}

/* NaN before every other double; two NaNs by their bits (realm-core's compare_float). */
static int compare_doubles(double a, double b)
{
    bool a_nan = a != a, b_nan = b != b;
    if (!a_nan && !b_nan) return a < b ? -1 : a > b;
    if (a_nan && b_nan) {
        uint64_t x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        return x < y ? -1 : x > y;
    }
    return a_nan ? -1 : 1;
}

/* An int and a double, exactly (realm-core's compare_long_to_double). */
static int compare_int_double(int64_t a, double b)
{
    if (b != b) return 1;
    const int64_t precise = (int64_t)1 << 53;
    if (a <= precise && a >= -precise) return compare_doubles((double)a, b);
    const double bound = 9223372036854775808.0; /* 2^63 */
    if (b >= bound) return -1;
    if (b < -bound) return 1;
    int64_t whole = (int64_t)b; /* beyond 2^53 a double has no fraction */
    return a < whole ? -1 : a > whole;
}

static double as_double(const lar_value *v)
{
    return v->type == LAR_TYPE_FLOAT ? (double)v->as.float32 : v->as.float64;
}

static int compare_numbers(const lar_value *a, const lar_value *b)
{
    if (a->type == LAR_TYPE_DECIMAL128 || b->type == LAR_TYPE_DECIMAL128)
        return decimal_compare(decimal_of_number(a), decimal_of_number(b));
    if (a->type == LAR_TYPE_INT && b->type == LAR_TYPE_INT)
        return a->as.integer < b->as.integer ? -1 : a->as.integer > b->as.integer;
    if (a->type == LAR_TYPE_INT) return compare_int_double(a->as.integer, as_double(b));
    if (b->type == LAR_TYPE_INT) return -compare_int_double(b->as.integer, as_double(a));
    return compare_doubles(as_double(a), as_double(b));
}

static int compare_bytes(const void *a, size_t a_size, const void *b, size_t b_size)
{
    size_t n = a_size < b_size ? a_size : b_size;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return sign(c);
    return a_size < b_size ? -1 : a_size > b_size;
}

#define COMPARE(x, y) ((x) < (y) ? -1 : (x) > (y))

int value_sort_order(const lar_value *a, const lar_value *b)
{
    if (a->type == LAR_TYPE_NULL || b->type == LAR_TYPE_NULL)
        return (b->type == LAR_TYPE_NULL) - (a->type == LAR_TYPE_NULL);
    int rank_a = kind_rank(a->type), rank_b = kind_rank(b->type);
    if (rank_a != rank_b) return rank_a < rank_b ? -1 : 1;
    switch (a->type) {
    case LAR_TYPE_BOOL: return COMPARE(a->as.boolean != 0, b->as.boolean != 0);
    case LAR_TYPE_INT: case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE: case LAR_TYPE_DECIMAL128:
        return compare_numbers(a, b);
    case LAR_TYPE_STRING:
        return compare_bytes(a->as.string.data, a->as.string.size, b->as.string.data, b->as.string.size);
    case LAR_TYPE_BINARY:
        return compare_bytes(a->as.binary.data, a->as.binary.size, b->as.binary.data, b->as.binary.size);
    case LAR_TYPE_TIMESTAMP:
        if (a->as.timestamp.seconds != b->as.timestamp.seconds)
            return COMPARE(a->as.timestamp.seconds, b->as.timestamp.seconds);
        return COMPARE(a->as.timestamp.nanoseconds, b->as.timestamp.nanoseconds);
    case LAR_TYPE_OBJECT_ID: return sign(memcmp(a->as.object_id.bytes, b->as.object_id.bytes, 12));
    case LAR_TYPE_UUID: return sign(memcmp(a->as.uuid.bytes, b->as.uuid.bytes, 16));
    case LAR_TYPE_LINK:
        if (a->as.link.cls != b->as.link.cls) return COMPARE(a->as.link.cls, b->as.link.cls);
        return COMPARE(a->as.link.key, b->as.link.key);
    default: /* nested collections: by id, only to be a total order */
        return COMPARE(a->as.nested, b->as.nested);
    }
}
