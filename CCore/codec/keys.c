/* Order-preserving key encodings for the primary-key and index tables.
 *
 * Keys compare with memcmp, so no custom comparator has to be registered by
 * every program (and every language) that opens the file:
 *   primary key: [class u32 BE][tag][value]
 *   index:       [class u32 BE][property u16 BE][tag][value]
 * The tag is 0 for null (sorting first) and 1 for a value. Integers are
 * big-endian with the sign bit flipped. Index strings are truncated to fit a
 * key; primary-key strings must fit whole. */
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
