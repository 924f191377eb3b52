/* Order-preserving key encodings for the primary-key and index tables.
 *
 * Keys compare with memcmp, so no custom comparator has to be registered by
 * every program (and every language) that opens the file:
 *   primary key: [class u32 BE][tag][value]
 *   index:       [class u32 BE][property u16 BE][tag][value]
 * The tag is 0 for null (sorting first) and 1 for a value. Integers are
 * big-endian with the sign bit flipped. Index strings are truncated to fit a
 * key; primary-key strings must fit whole.
 *
 * Elements of sets (key_encode_element) are encoded the same way, one-to-one. Those
 * of sets of mixed values (key_encode_mixed) start with a rank, so that values of
 * different kinds sort by kind, as Realm's Set<Mixed> does:
 *   0 null | 1 bool [0|1] | 2 number [u64 order of its double][u16 BE rest ^ 0x8000]
 *   [decimal tail] | 4 string [bytes][0] | 5 binary [bytes] | 6 timestamp
 *   | 7 ObjectId | 8 UUID (as above) | 9 link [class u32 BE][key u64 BE]
 * (3 is unused: format 2 ranked decimals apart.) Ints, floats, doubles and decimals
 * compare by exact numeric value, as in Realm (int 1, double 1.0 and decimal128 1 are
 * one element): a number is its nearest double (one NaN, -0.0 is 0.0), then what an
 * int differs from that double by (|rest| <= 1024; 0 for floats and doubles), so the
 * key is exact for every int64 and double and memcmp orders them as numbers. A
 * decimal equal to an int64 or a double is keyed as that number. Any other decimal
 * (0.1, which no double is exactly, or 2^63 + 0.5) lies strictly between two of
 * those keys: its rest is floor(decimal - double) where ints share the double (2^53
 * to 2^63), else -1 below the double and 0 above; a tail (decimal.c's order
 * encoding of the decimal) follows, ordering decimals that share the rest, and
 * putting them after the int or double the rest names. Strings and binaries are
 * distinct kinds (Realm 14 compared them as bytes; Realm 20's queries no longer
 * treat them as equal, and neither does Larder). A number's key is not decoded
 * back (it does not say whether it was an int, a float, a double or a decimal: a set of mixed
 * keeps a number's own typed encoding beside its key); every other kind's is
 * (key_decode_mixed), links also for the backlinks the set keeps. */
#include "codec/codec.h"

#include <string.h>

static size_t put_u32_be(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)(v >> 24); out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8); out[3] = (uint8_t)v;
    return 4;
}

static size_t put_u64_be(uint8_t *out, uint64_t v)
{
    put_u32_be(out, (uint32_t)(v >> 32));
    put_u32_be(out + 4, (uint32_t)v);
    return 8;
}

/* Appends the tagged value; returns its length, or 0 when a primary-key string is too long. */
static size_t encode_value(const lar_value *value, uint8_t *out, size_t room, bool truncate)
{
    if (value->type == LAR_TYPE_NULL) {
        out[0] = 0;
        return 1;
    }
    out[0] = 1;
    switch (value->type) {
    case LAR_TYPE_INT: return 1 + put_u64_be(out + 1, (uint64_t)value->as.integer ^ (1ull << 63));
    case LAR_TYPE_BOOL: out[1] = (uint8_t)(value->as.boolean != 0); return 2;
    case LAR_TYPE_TIMESTAMP:
        put_u64_be(out + 1, (uint64_t)value->as.timestamp.seconds ^ (1ull << 63));
        put_u32_be(out + 9, (uint32_t)value->as.timestamp.nanoseconds ^ (1u << 31));
        return 13;
    case LAR_TYPE_OBJECT_ID: memcpy(out + 1, value->as.object_id.bytes, 12); return 13;
    case LAR_TYPE_UUID: memcpy(out + 1, value->as.uuid.bytes, 16); return 17;
    case LAR_TYPE_STRING: {
        size_t size = value->as.string.size;
        if (size > room - 1) {
            if (!truncate) return 0;
            size = room - 1;
        }
        if (size) memcpy(out + 1, value->as.string.data, size);
        return 1 + size;
    }
    default: return 0;
    }
}

size_t key_encode_primary(lar_class cls, const lar_value *value, uint8_t *out)
{
    size_t head = put_u32_be(out, cls);
    size_t body = encode_value(value, out + head, KEY_MAX - head, false);
    return body ? head + body : 0;
}

size_t key_encode_index(lar_class cls, uint32_t prop, const lar_value *value, uint8_t *out)
{
    size_t head = put_u32_be(out, cls);
    out[head++] = (uint8_t)(prop >> 8);
    out[head++] = (uint8_t)prop;
    return head + encode_value(value, out + head, KEY_MAX - head, true);
}

size_t key_encode_class_prefix(lar_class cls, uint8_t *out)
{
    return put_u32_be(out, cls);
}

/* ---- collection elements ---- */

static uint64_t get_u64_be(const uint8_t *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | in[i];
    return v;
}

static uint32_t get_u32_be(const uint8_t *in)
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

/* IEEE floats ordered as unsigned integers: positive ones get the sign bit, negative
 * ones are inverted. */
static uint64_t double_order(double d)
{
    if (d == 0) d = 0;              /* -0.0 is 0.0 */
    if (d != d) d = __builtin_nan(""); /* one NaN */
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return bits >> 63 ? ~bits : bits | 1ull << 63;
}

static double double_from_order(uint64_t v)
{
    uint64_t bits = v >> 63 ? v & ~(1ull << 63) : ~v;
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static uint32_t float_order(float f)
{
    if (f == 0) f = 0;
    if (f != f) f = __builtin_nanf("");
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits >> 31 ? ~bits : bits | 1u << 31;
}

static float float_from_order(uint32_t v)
{
    uint32_t bits = v >> 31 ? v & ~(1u << 31) : ~v;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

size_t key_encode_element(const lar_value *value, uint8_t *out, size_t room)
{
    if (value->type == LAR_TYPE_NULL) {
        out[0] = 0;
        return 1;
    }
    out[0] = 1;
    uint8_t *p = out + 1;
    switch (value->type) {
    case LAR_TYPE_INT: return 1 + put_u64_be(p, (uint64_t)value->as.integer ^ (1ull << 63));
    case LAR_TYPE_BOOL: p[0] = (uint8_t)(value->as.boolean != 0); return 2;
    case LAR_TYPE_FLOAT: return 1 + put_u32_be(p, float_order(value->as.float32));
    case LAR_TYPE_DOUBLE: return 1 + put_u64_be(p, double_order(value->as.float64));
    case LAR_TYPE_LINK: return 1 + put_u64_be(p, value->as.link.key);
    case LAR_TYPE_TIMESTAMP:
        put_u64_be(p, (uint64_t)value->as.timestamp.seconds ^ (1ull << 63));
        put_u32_be(p + 8, (uint32_t)value->as.timestamp.nanoseconds ^ (1u << 31));
        return 13;
    case LAR_TYPE_OBJECT_ID: memcpy(p, value->as.object_id.bytes, 12); return 13;
    case LAR_TYPE_UUID: memcpy(p, value->as.uuid.bytes, 16); return 17;
    case LAR_TYPE_DECIMAL128: /* by bits, not by value: distinct encodings stay distinct */
        put_u64_be(p, value->as.decimal128.high);
        put_u64_be(p + 8, value->as.decimal128.low);
        return 17;
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY: {
        bool string = value->type == LAR_TYPE_STRING;
        size_t size = string ? value->as.string.size : value->as.binary.size;
        if (size + 1 + string > room) return 0;
        if (size) memcpy(p, string ? (const void *)value->as.string.data : value->as.binary.data, size);
        if (string) p[size] = 0;
        return 1 + size + string;
    }
    default: return 0;
    }
}

static size_t fixed_element_size(lar_type type)
{
    switch (type) {
    case LAR_TYPE_BOOL: return 1;
    case LAR_TYPE_FLOAT: return 4;
    case LAR_TYPE_INT: case LAR_TYPE_DOUBLE: case LAR_TYPE_LINK: return 8;
    case LAR_TYPE_TIMESTAMP: case LAR_TYPE_OBJECT_ID: return 12;
    case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128: return 16;
    default: return 0;
    }
}

bool key_decode_element(const uint8_t *bytes, size_t size, lar_type type, lar_class target, lar_value *out)
{
    memset(out, 0, sizeof *out);
    if (size == 1 && bytes[0] == 0) return true; /* null */
    if (size < 1 || bytes[0] != 1) return false;
    const uint8_t *p = bytes + 1;
    size_t body = size - 1;
    out->type = type;
    if (type == LAR_TYPE_STRING) {
        if (!body || p[body - 1] != 0) return false;
        out->as.string = (lar_string){(const char *)p, body - 1};
        return true;
    }
    if (type == LAR_TYPE_BINARY) {
        out->as.binary = (lar_binary){p, body};
        return true;
    }
    if (!fixed_element_size(type) || body != fixed_element_size(type)) return false;
    switch (type) {
    case LAR_TYPE_INT: out->as.integer = (int64_t)(get_u64_be(p) ^ (1ull << 63)); break;
    case LAR_TYPE_BOOL: out->as.boolean = p[0] != 0; break;
    case LAR_TYPE_FLOAT: out->as.float32 = float_from_order(get_u32_be(p)); break;
    case LAR_TYPE_DOUBLE: out->as.float64 = double_from_order(get_u64_be(p)); break;
    case LAR_TYPE_LINK: out->as.link = (lar_obj){target, get_u64_be(p)}; break;
    case LAR_TYPE_TIMESTAMP:
        out->as.timestamp.seconds = (int64_t)(get_u64_be(p) ^ (1ull << 63));
        out->as.timestamp.nanoseconds = (int32_t)(get_u32_be(p + 8) ^ (1u << 31));
        break;
    case LAR_TYPE_OBJECT_ID: memcpy(out->as.object_id.bytes, p, 12); break;
    case LAR_TYPE_UUID: memcpy(out->as.uuid.bytes, p, 16); break;
    default:
        out->as.decimal128.high = get_u64_be(p);
        out->as.decimal128.low = get_u64_be(p + 8);
        break;
    }
    return true;
}

/* ---- elements of sets of mixed values ---- */

enum { RANK_NULL, RANK_BOOL, RANK_NUMBER, RANK_UNUSED, RANK_STRING, RANK_BINARY, RANK_TIMESTAMP,
       RANK_OBJECT_ID, RANK_UUID, RANK_LINK };

static size_t put_number(uint8_t *out, double nearest, int64_t rest)
{
    put_u64_be(out, double_order(nearest));
    uint16_t r = (uint16_t)((uint16_t)(int16_t)rest ^ 0x8000u);
    out[8] = (uint8_t)(r >> 8);
    out[9] = (uint8_t)r;
    return 10;
}

static size_t put_int_number(uint8_t *out, int64_t v)
{
    double nearest = (double)v; /* within 2^63 of 0: its integer part fits __int128 */
    __int128 rest = (__int128)v - (__int128)nearest;
    return put_number(out, nearest, (int64_t)rest);
}

/* A decimal among the numbers (see the top of the file). */
static size_t put_decimal_number(uint8_t *out, lar_decimal128 d)
{
    decimal_parts x;
    decimal_split(d, &x);
    int64_t integer;
    if (decimal_to_int64(&x, &integer)) return put_int_number(out, integer);
    double nearest = decimal_nearest_double(&x);
    if (x.kind != DECIMAL_FINITE) return put_number(out, nearest, 0);
    int order = decimal_compare_double(&x, nearest);
    if (!order) return put_number(out, nearest, 0);
    double magnitude = nearest < 0 ? -nearest : nearest;
    bool shared_with_ints = magnitude >= 0x1p53 && magnitude <= 0x1p63;
    size_t size = put_number(out, nearest, shared_with_ints ? decimal_floor_minus(&x, nearest) : order < 0 ? -1 : 0);
    return size + decimal_order_encode(&x, out + size);
}

size_t key_encode_mixed(const lar_value *value, uint8_t *out, size_t room)
{
    uint8_t *p = out + 1;
    switch (value->type) {
    case LAR_TYPE_NULL: out[0] = RANK_NULL; return 1;
    case LAR_TYPE_BOOL: out[0] = RANK_BOOL; p[0] = (uint8_t)(value->as.boolean != 0); return 2;
    case LAR_TYPE_INT: out[0] = RANK_NUMBER; return 1 + put_int_number(p, value->as.integer);
    case LAR_TYPE_FLOAT: out[0] = RANK_NUMBER; return 1 + put_number(p, (double)value->as.float32, 0);
    case LAR_TYPE_DOUBLE: out[0] = RANK_NUMBER; return 1 + put_number(p, value->as.float64, 0);
    case LAR_TYPE_DECIMAL128:
        if (room < 1 + 10 + 21) return 0;
        out[0] = RANK_NUMBER;
        return 1 + put_decimal_number(p, value->as.decimal128);
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY: {
        bool string = value->type == LAR_TYPE_STRING;
        size_t size = string ? value->as.string.size : value->as.binary.size;
        if (size + 1 + string > room) return 0;
        out[0] = string ? RANK_STRING : RANK_BINARY;
        if (size) memcpy(p, string ? (const void *)value->as.string.data : value->as.binary.data, size);
        if (string) p[size] = 0;
        return 1 + size + string;
    }
    case LAR_TYPE_TIMESTAMP:
        out[0] = RANK_TIMESTAMP;
        put_u64_be(p, (uint64_t)value->as.timestamp.seconds ^ (1ull << 63));
        put_u32_be(p + 8, (uint32_t)value->as.timestamp.nanoseconds ^ (1u << 31));
        return 13;
    case LAR_TYPE_OBJECT_ID: out[0] = RANK_OBJECT_ID; memcpy(p, value->as.object_id.bytes, 12); return 13;
    case LAR_TYPE_UUID: out[0] = RANK_UUID; memcpy(p, value->as.uuid.bytes, 16); return 17;
    case LAR_TYPE_LINK:
        out[0] = RANK_LINK;
        put_u32_be(p, value->as.link.cls);
        put_u64_be(p + 4, value->as.link.key);
        return 13;
    default: return 0;
    }
}

bool key_decode_mixed_link(const uint8_t *bytes, size_t size, lar_obj *out)
{
    if (size != 13 || bytes[0] != RANK_LINK) return false;
    out->cls = get_u32_be(bytes + 1);
    out->key = get_u64_be(bytes + 5);
    return true;
}

bool key_decode_mixed(const uint8_t *bytes, size_t size, lar_value *out)
{
    if (!size) return false;
    const uint8_t *p = bytes + 1;
    switch (bytes[0]) {
    case RANK_NULL: *out = (lar_value){.type = LAR_TYPE_NULL}; return size == 1;
    case RANK_BOOL:
        *out = (lar_value){.type = LAR_TYPE_BOOL, .as.boolean = size == 2 ? p[0] : 0};
        return size == 2 && p[0] <= 1;
    case RANK_STRING: /* [bytes][0]: the string points into the key, NUL-terminated */
        if (size < 2 || bytes[size - 1]) return false;
        out->type = LAR_TYPE_STRING;
        out->as.string.data = (const char *)p;
        out->as.string.size = size - 2;
        return true;
    case RANK_BINARY:
        out->type = LAR_TYPE_BINARY;
        out->as.binary.data = p;
        out->as.binary.size = size - 1;
        return true;
    case RANK_TIMESTAMP:
        if (size != 13) return false;
        out->type = LAR_TYPE_TIMESTAMP;
        out->as.timestamp.seconds = (int64_t)(get_u64_be(p) ^ (1ull << 63));
        out->as.timestamp.nanoseconds = (int32_t)(get_u32_be(p + 8) ^ (1u << 31));
        return true;
    case RANK_OBJECT_ID:
        if (size != 13) return false;
        out->type = LAR_TYPE_OBJECT_ID;
        memcpy(out->as.object_id.bytes, p, 12);
        return true;
    case RANK_UUID:
        if (size != 17) return false;
        out->type = LAR_TYPE_UUID;
        memcpy(out->as.uuid.bytes, p, 16);
        return true;
    case RANK_LINK:
        out->type = LAR_TYPE_LINK;
        return key_decode_mixed_link(bytes, size, &out->as.link);
    default: return false; /* a number (its type is not in the key) or damage */
    }
}

bool key_mixed_is_number(const uint8_t *bytes, size_t size)
{
    return size && bytes[0] == RANK_NUMBER;
}
