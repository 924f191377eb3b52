/* Comparing values as queries do: numbers by value across int, float, double and
 * decimal128 (as realm-core's Mixed does), everything else within its own type. */
#include "query/results.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static int sign_of(int c)
{
    return (c > 0) - (c < 0);
}

/* ---- decimal128 (BID encoding) ---- */

typedef struct decimal_parts {
    bool negative, nan, infinite;
    unsigned __int128 coefficient; /* < 10^34; 0 for non-canonical encodings, as IEEE says */
    int exponent;
} decimal_parts;

static decimal_parts decimal_split(lar_decimal128 d)
{
    decimal_parts p = {.negative = d.high >> 63};
    uint64_t combination = (d.high >> 58) & 0x1F;
    if (combination == 0x1F) p.nan = true;
    else if (combination == 0x1E) p.infinite = true;
    if (p.nan || p.infinite) return p;
    unsigned __int128 c;
    if (((d.high >> 61) & 3) == 3) { /* the large-coefficient form: always above 10^34, non-canonical */
        p.exponent = (int)((d.high >> 47) & 0x3FFF) - 6176;
        c = 0;
    } else {
        p.exponent = (int)((d.high >> 49) & 0x3FFF) - 6176;
        c = ((unsigned __int128)(d.high & 0x1FFFFFFFFFFFFull) << 64) | d.low;
    }
    unsigned __int128 limit = (unsigned __int128)10000000000000000ull * 1000000000000000000ull; /* 10^34 */
    p.coefficient = c < limit ? c : 0;
    return p;
}

/* Compares magnitudes c1 * 10^e1 and c2 * 10^e2. */
static int magnitude_order(unsigned __int128 c1, int e1, unsigned __int128 c2, int e2)
{
    if (c1 == 0 || c2 == 0) return sign_of((c1 != 0) - (c2 != 0));
    const unsigned __int128 room = ((unsigned __int128)1 << 124); /* c * 10 stays below 2^128 */
    while (e1 > e2 && c1 < room) c1 *= 10, e1--;
    while (e2 > e1 && c2 < room) c2 *= 10, e2--;
    if (e1 > e2) return 1;  /* c1 >= 2^124 > every coefficient c2 could still be */
    if (e2 > e1) return -1;
    return c1 < c2 ? -1 : c1 > c2;
}

static int decimal_order(lar_decimal128 a, lar_decimal128 b)
{
    decimal_parts x = decimal_split(a), y = decimal_split(b);
    if (x.nan || y.nan) return ORDER_NONE;
    int sx = x.infinite || x.coefficient ? (x.negative ? -1 : 1) : 0;
    int sy = y.infinite || y.coefficient ? (y.negative ? -1 : 1) : 0;
    if (sx != sy) return sign_of(sx - sy);
    if (sx == 0) return 0;
    int m;
    if (x.infinite || y.infinite) m = x.infinite - y.infinite;
    else m = magnitude_order(x.coefficient, x.exponent, y.coefficient, y.exponent);
    return sx < 0 ? -m : m;
}

lar_decimal128 decimal_from_int(int64_t i)
{
    uint64_t magnitude = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    lar_decimal128 d = {magnitude, (i < 0 ? (uint64_t)1 << 63 : 0) | (uint64_t)6176 << 49};
    return d;
}

/* ---- decimal arithmetic for @sum and @avg: exact, then rounded to 34 digits (half to even) ---- */

#define DEC_NAN ((lar_decimal128){0, 0x7C00000000000000ull})

static const unsigned __int128 TEN_34 = (unsigned __int128)10000000000000000ull * 1000000000000000000ull;
static const unsigned __int128 TEN_37 = (unsigned __int128)10000000000000000ull * 1000000000000000000ull * 1000;

/* Divides c by 10, rounding half to even; sticky: digits already dropped were not all 0. */
static unsigned __int128 drop_digit(unsigned __int128 c, bool *sticky)
{
    unsigned digit = (unsigned)(c % 10);
    unsigned __int128 q = c / 10;
    bool up = digit > 5 || (digit == 5 && (*sticky || (q & 1)));
    *sticky |= digit != 0;
    return q + up;
}

static lar_decimal128 decimal_make(bool negative, unsigned __int128 c, int exponent, bool sticky)
{
    while (c >= TEN_34 || exponent < -6176) {
        if (c == 0) { exponent = -6176; break; }
        c = drop_digit(c, &sticky);
        exponent++;
    }
    while (exponent > 6111 && c && c * 10 < TEN_34) c *= 10, exponent--;
    if (exponent > 6111 && c) /* too large: infinity */
        return (lar_decimal128){0, (negative ? (uint64_t)1 << 63 : 0) | 0x7800000000000000ull};
    if (exponent > 6111) exponent = 6111;
    lar_decimal128 d = {(uint64_t)c, (negative ? (uint64_t)1 << 63 : 0) | (uint64_t)(exponent + 6176) << 49 |
                                         (uint64_t)(c >> 64)};
    return d;
}

lar_decimal128 decimal_add(lar_decimal128 a, lar_decimal128 b)
{
    decimal_parts x = decimal_split(a), y = decimal_split(b);
    if (x.nan || y.nan || (x.infinite && y.infinite && x.negative != y.negative)) return DEC_NAN;
    if (x.infinite) return a;
    if (y.infinite) return b;
    if (x.exponent < y.exponent) { decimal_parts t = x; x = y; y = t; } /* x has the larger exponent */
    bool sticky = false;
    while (x.exponent > y.exponent && x.coefficient < TEN_37) x.coefficient *= 10, x.exponent--;
    while (x.exponent > y.exponent) { /* digits of y below x's last one: only their rounding remains */
        sticky |= y.coefficient % 10 != 0;
        y.coefficient /= 10;
        y.exponent++;
    }
    unsigned __int128 c;
    bool negative;
    if (x.negative == y.negative) {
        c = x.coefficient + y.coefficient;
        negative = x.negative;
    } else if (x.coefficient >= y.coefficient) {
        c = x.coefficient - y.coefficient;
        negative = x.negative;
    } else {
        c = y.coefficient - x.coefficient;
        negative = y.negative;
    }
    return decimal_make(negative && c != 0, c, x.exponent, sticky);
}

lar_decimal128 decimal_divide(lar_decimal128 a, uint64_t n)
{
    decimal_parts x = decimal_split(a);
    if (x.nan || n == 0) return DEC_NAN;
    if (x.infinite) return a;
    while (x.coefficient && x.coefficient < TEN_37 / 10) x.coefficient *= 10, x.exponent--; /* digits to keep */
    unsigned __int128 q = x.coefficient / n;
    return decimal_make(x.negative && q != 0, q, x.exponent, x.coefficient % n != 0);
}

double decimal_to_double(lar_decimal128 d)
{
    decimal_parts p = decimal_split(d);
    if (p.nan) return NAN;
    double v = p.infinite ? INFINITY : (double)p.coefficient;
    for (int e = p.exponent; e > 0 && v != INFINITY && v != 0; e--) v *= 10; /* no libm: a loop */
    for (int e = p.exponent; e < 0 && v != 0; e++) v /= 10;
    return p.negative ? -v : v;
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
        if (a->type == LAR_TYPE_DECIMAL128 && b->type == LAR_TYPE_DECIMAL128)
            return decimal_order(a->as.decimal128, b->as.decimal128);
        if (a->type == LAR_TYPE_INT) return decimal_order(decimal_from_int(a->as.integer), b->as.decimal128);
        if (b->type == LAR_TYPE_INT) return decimal_order(a->as.decimal128, decimal_from_int(b->as.integer));
        /* A binary float against a decimal: by the decimal's nearest double. */
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
