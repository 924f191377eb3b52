/* Elements: a value with its type, in a few bytes, for lists' chunks and maps'
 * values (collection/list.c and map.c):
 *   [u8 type][payload]: nothing for null; the 1 to 16 bytes of a number, timestamp,
 *   ObjectId, UUID or decimal; the u64 key of a link (its class is the property's
 *   target); u32 length and the bytes of a binary, or of a string followed by its NUL
 *   (so reads hand out the stored bytes). Numbers in the host's byte order, as rows.
 * Elements of mixed collections use the same encoding (each element carries its type
 * already), except for links, which have no target class to take theirs from: a
 * typed link is [u8 ELEMENT_TYPED_LINK (0x8B)][u64 key][u32 class]. Collections of
 * objects keep the 9-byte form. A nested collection inside a mixed value is
 * [u8 LAR_TYPE_LIST (14) or LAR_TYPE_DICTIONARY (15)][u64 nested id]: the id of its
 * header record (collection/nested.c), which never changes while it lives, so a
 * parent is never rewritten when its child grows. */
#include "codec/codec.h"

#include <string.h>

static uint32_t get_u32(const uint8_t *at) { uint32_t v; memcpy(&v, at, 4); return v; }
static void put_u32(uint8_t *at, uint32_t v) { memcpy(at, &v, 4); }

static size_t payload_size(uint8_t type)
{
    switch (type) {
    case LAR_TYPE_NULL: return 0;
    case LAR_TYPE_BOOL: return 1;
    case LAR_TYPE_FLOAT: return 4;
    case LAR_TYPE_INT: case LAR_TYPE_DOUBLE: case LAR_TYPE_LINK: return 8;
    case LAR_TYPE_TIMESTAMP: case LAR_TYPE_OBJECT_ID: return 12;
    case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128: return 16;
    case ELEMENT_TYPED_LINK: return 12;
    case LAR_TYPE_LIST: case LAR_TYPE_DICTIONARY: return 8;
    default: return SIZE_MAX;
    }
}

/* The size of the element at `at`, or 0 when it is damaged or passes left bytes. */
size_t element_size(const uint8_t *at, size_t left)
{
    if (!left) return 0;
    if (at[0] == LAR_TYPE_STRING || at[0] == LAR_TYPE_BINARY) {
        if (left < 5) return 0;
        uint64_t length = (uint64_t)get_u32(at + 1) + (at[0] == LAR_TYPE_STRING);
        if (length > left - 5) return 0;
        if (at[0] == LAR_TYPE_STRING && at[5 + length - 1] != 0) return 0;
        return 5 + (size_t)length;
    }
    size_t size = payload_size(at[0]);
    return size < left ? 1 + size : 0;
}

size_t element_encoded_size(const lar_value *v, bool typed)
{
    if (typed && v->type == LAR_TYPE_LINK) return 1 + payload_size(ELEMENT_TYPED_LINK);
    if (v->type == LAR_TYPE_STRING) return 5 + v->as.string.size + 1;
    if (v->type == LAR_TYPE_BINARY) return 5 + v->as.binary.size;
    return 1 + payload_size((uint8_t)v->type);
}

void element_encode(const lar_value *v, bool typed, uint8_t *out)
{
    out[0] = (uint8_t)v->type;
    if (typed && v->type == LAR_TYPE_LINK) {
        out[0] = ELEMENT_TYPED_LINK;
        memcpy(out + 1, &v->as.link.key, 8);
        memcpy(out + 9, &v->as.link.cls, 4);
        return;
    }
    uint8_t *p = out + 1;
    switch (v->type) {
    case LAR_TYPE_BOOL: p[0] = (uint8_t)(v->as.boolean != 0); break;
    case LAR_TYPE_FLOAT: memcpy(p, &v->as.float32, 4); break;
    case LAR_TYPE_INT: memcpy(p, &v->as.integer, 8); break;
    case LAR_TYPE_DOUBLE: memcpy(p, &v->as.float64, 8); break;
    case LAR_TYPE_LINK: memcpy(p, &v->as.link.key, 8); break;
    case LAR_TYPE_LIST: case LAR_TYPE_DICTIONARY: memcpy(p, &v->as.nested, 8); break;
    case LAR_TYPE_TIMESTAMP:
        memcpy(p, &v->as.timestamp.seconds, 8);
        memcpy(p + 8, &v->as.timestamp.nanoseconds, 4);
        break;
    case LAR_TYPE_OBJECT_ID: memcpy(p, v->as.object_id.bytes, 12); break;
    case LAR_TYPE_UUID: memcpy(p, v->as.uuid.bytes, 16); break;
    case LAR_TYPE_DECIMAL128:
        memcpy(p, &v->as.decimal128.low, 8);
        memcpy(p + 8, &v->as.decimal128.high, 8);
        break;
    case LAR_TYPE_STRING:
        put_u32(p, (uint32_t)v->as.string.size);
        if (v->as.string.size) memcpy(p + 4, v->as.string.data, v->as.string.size);
        p[4 + v->as.string.size] = 0;
        break;
    case LAR_TYPE_BINARY:
        put_u32(p, (uint32_t)v->as.binary.size);
        if (v->as.binary.size) memcpy(p + 4, v->as.binary.data, v->as.binary.size);
        break;
    default: break;
    }
}

/* Decodes a checked element; strings and binaries point into it. */
void element_decode(const uint8_t *at, lar_class target, lar_value *out)
{
    memset(out, 0, sizeof *out);
    const uint8_t *p = at + 1;
    if (at[0] == ELEMENT_TYPED_LINK) {
        out->type = LAR_TYPE_LINK;
        memcpy(&out->as.link.key, p, 8);
        memcpy(&out->as.link.cls, p + 8, 4);
        return;
    }
    out->type = (lar_type)at[0];
    switch (out->type) {
    case LAR_TYPE_BOOL: out->as.boolean = p[0] != 0; break;
    case LAR_TYPE_FLOAT: memcpy(&out->as.float32, p, 4); break;
    case LAR_TYPE_INT: memcpy(&out->as.integer, p, 8); break;
    case LAR_TYPE_DOUBLE: memcpy(&out->as.float64, p, 8); break;
    case LAR_TYPE_LINK:
        out->as.link.cls = target;
        memcpy(&out->as.link.key, p, 8);
        break;
    case LAR_TYPE_LIST: case LAR_TYPE_DICTIONARY: memcpy(&out->as.nested, p, 8); break;
    case LAR_TYPE_TIMESTAMP:
        memcpy(&out->as.timestamp.seconds, p, 8);
        memcpy(&out->as.timestamp.nanoseconds, p + 8, 4);
        break;
    case LAR_TYPE_OBJECT_ID: memcpy(out->as.object_id.bytes, p, 12); break;
    case LAR_TYPE_UUID: memcpy(out->as.uuid.bytes, p, 16); break;
    case LAR_TYPE_DECIMAL128:
        memcpy(&out->as.decimal128.low, p, 8);
        memcpy(&out->as.decimal128.high, p + 8, 8);
        break;
    case LAR_TYPE_STRING: out->as.string = (lar_string){(const char *)p + 4, get_u32(p)}; break;
    case LAR_TYPE_BINARY: out->as.binary = (lar_binary){p + 4, get_u32(p)}; break;
    default: break;
    }
}
