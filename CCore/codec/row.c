/* Rows: one record per object.
 *
 *   [fixed slots, in property order][null bitmap][variable area]
 *
 * Every property has a fixed-width slot, so one property decodes without the
 * others. Only classes with optional properties have the null bitmap (a bit per
 * property). Strings and binaries keep (u32 offset, u32 length) in their slot
 * and their bytes in the variable area; strings are stored with a trailing NUL
 * so readers can use them straight from the memory map. A row holds exactly
 * its class's current properties: no header, so a class of numbers costs what
 * the numbers do (a later change to a class's properties rewrites its rows).
 * The rows of a class keyed by its int primary key (object/object.c) end their slots
 * with an 8-byte stamp, distinct for every object created in the file, since such
 * an object takes the key of a deleted one with the same primary key.
 * Numbers are stored in the host's byte order, as LMDB stores its own pages, so
 * a file moves only between machines of the same byte order.
 *
 * A mixed property (LAR_TYPE_MIXED, never in the null bitmap: null is one of its
 * values) has a 17-byte slot: [u8 type][16 bytes], the type being the value's
 * lar_type (0 for null) and the 16 bytes what a slot of that type holds, left-aligned
 * (a number, timestamp, ObjectId, UUID or decimal inline; a string's or binary's
 * u32 offset and u32 length into the variable area, which such classes always
 * have), except for a link: [u64 key][u32 class], a typed link to any class, and a
 * nested list or dictionary (type 14 or 15): [u64 nested id] (collection/nested.c). The
 * unused bytes are 0. So one mixed property still decodes alone, without a walk.
 *
 * A row of an embedded class ends with its owner (row_owner, ROW_OWNER_SIZE bytes after
 * the variable area; see object/embedded.c), which rewrites of the row keep. */
#include "codec/codec.h"

#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#include <stddef.h>
/* put_wide() writes a lar_value as {type, padding, number}. */
_Static_assert(offsetof(lar_value, as) == 8 && sizeof(lar_type) == 4, "lar_value layout");
#endif

static uint32_t var_size(const lar_value *value)
{
    if (value->type == LAR_TYPE_STRING) return (uint32_t)value->as.string.size + 1;
    if (value->type == LAR_TYPE_BINARY) return (uint32_t)value->as.binary.size;
    return 0;
}

static void encode_slot(uint8_t *slot, const lar_value *value, uint8_t *row, uint32_t *var_offset)
{
    switch (value->type) {
    case LAR_TYPE_INT: memcpy(slot, &value->as.integer, 8); break;
    case LAR_TYPE_LINK: memcpy(slot, &value->as.link.key, 8); break;
    case LAR_TYPE_LIST: case LAR_TYPE_DICTIONARY: memcpy(slot, &value->as.nested, 8); break;
    case LAR_TYPE_BOOL: slot[0] = (uint8_t)(value->as.boolean != 0); break;
    case LAR_TYPE_FLOAT: memcpy(slot, &value->as.float32, 4); break;
    case LAR_TYPE_DOUBLE: memcpy(slot, &value->as.float64, 8); break;
    case LAR_TYPE_TIMESTAMP:
        memcpy(slot, &value->as.timestamp.seconds, 8);
        memcpy(slot + 8, &value->as.timestamp.nanoseconds, 4);
        break;
    case LAR_TYPE_OBJECT_ID: memcpy(slot, value->as.object_id.bytes, 12); break;
    case LAR_TYPE_UUID: memcpy(slot, value->as.uuid.bytes, 16); break;
    case LAR_TYPE_DECIMAL128:
        memcpy(slot, &value->as.decimal128.low, 8);
        memcpy(slot + 8, &value->as.decimal128.high, 8);
        break;
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY: {
        uint32_t length = var_size(value);
        const void *bytes = value->type == LAR_TYPE_STRING ? (const void *)value->as.string.data
                                                           : value->as.binary.data;
        uint32_t stored = value->type == LAR_TYPE_STRING ? length - 1 : length;
        memcpy(slot, var_offset, 4);
        memcpy(slot + 4, &stored, 4);
        if (stored) memcpy(row + *var_offset, bytes, stored);
        if (value->type == LAR_TYPE_STRING) row[*var_offset + stored] = 0;
        *var_offset += length;
        break;
    }
    default: break;
    }
}

/* A mixed slot: the value's type, then its own slot's bytes (see the top). */
static void encode_mixed(uint8_t *slot, const lar_value *value, uint8_t *row, uint32_t *var_offset)
{
    slot[0] = (uint8_t)value->type;
    encode_slot(slot + 1, value, row, var_offset);
    if (value->type == LAR_TYPE_LINK) memcpy(slot + 9, &value->as.link.cls, 4);
}

/* Rows of required ints and doubles: each value's 8 bytes into consecutive slots. */
static void encode_wide(const schema_class *cls, const lar_value *values, uint8_t *row)
{
    for (uint32_t i = 0, count = cls->property_count; i < count; i++) memcpy(row + 8 * i, &values[i].as, 8);
}

int row_encode(const schema_class *cls, const lar_value *values, byte_buffer *buffer)
{
    uint32_t count = cls->property_count;
    uint32_t var_at = cls->var_at;
    size_t trailer = row_trailer_size(cls), total = var_at + trailer;
    for (uint32_t i = 0; cls->has_var && i < count; i++) total += var_size(&values[i]);
    if (total > UINT32_MAX) return lar_fail(LAR_EINVAL, "object of class '%s' is too large", cls->name);
    buffer->size = 0;
    if (buffer_reserve(buffer, total)) return LAR_ENOMEM;
    uint8_t *row = buffer->data;
    buffer->size = total;
    if (trailer) memset(row + total - trailer, 0, trailer); /* no owner yet */
    if (cls->all_wide_numbers) {
        encode_wide(cls, values, row);
        if (cls->keyed_by_primary) memset(row + cls->stamp_at, 0, ROW_STAMP_SIZE);
        return LAR_OK;
    }
    memset(row, 0, var_at);
    uint32_t var_offset = var_at;
    for (uint32_t i = 0; i < count; i++) {
        if (cls->properties[i].def.collection) {
            /* The collection's id (see row_decode_for_rewrite), or 0 for none yet. */
            uint64_t id = values[i].type == LAR_TYPE_INT ? (uint64_t)values[i].as.integer : 0;
            memcpy(row + cls->properties[i].slot_offset, &id, 8);
            continue;
        }
        if (cls->properties[i].def.type == LAR_TYPE_MIXED) {
            encode_mixed(row + cls->properties[i].slot_offset, &values[i], row, &var_offset);
            continue;
        }
        if (values[i].type == LAR_TYPE_NULL) {
            row[cls->fixed_size + i / 8] |= (uint8_t)(1u << (i % 8));
            continue;
        }
        encode_slot(row + cls->properties[i].slot_offset, &values[i], row, &var_offset);
    }
    return LAR_OK;
}


void row_owner_read(const kv_val *row, row_owner *out)
{
    const uint8_t *at = (const uint8_t *)row->mv_data + row->mv_size - ROW_OWNER_SIZE;
    memcpy(&out->origin_key, at, 8);
    memcpy(&out->origin_cls, at + 8, 4);
    memcpy(&out->prop, at + 12, 4);
    memcpy(&out->count, at + 16, 4);
}

void row_owner_write(uint8_t *row, size_t size, const row_owner *owner)
{
    uint8_t *at = row + size - ROW_OWNER_SIZE;
    memcpy(at, &owner->origin_key, 8);
    memcpy(at + 8, &owner->origin_cls, 4);
    memcpy(at + 12, &owner->prop, 4);
    memcpy(at + 16, &owner->count, 4);
}

static int corrupt(const schema_class *cls)
{
    return lar_fail(LAR_ECORRUPT, "an object of class '%s' has an undecodable row", cls->name);
}

/* A string or binary's bytes must lie in the row's variable area, bounded by the
 * size LMDB returned; a string must end with its NUL, which readers rely on. */
static int decode_var(const schema_class *cls, const uint8_t *slot, const kv_val *row, bool string,
                      lar_value *out)
{
    const uint8_t *bytes;
    size_t size;
    if (!row_var_bytes(cls, row, slot, string, &bytes, &size)) return LAR_ECORRUPT;
    if (string) {
        out->as.string.data = (const char *)bytes;
        out->as.string.size = size;
    } else {
        out->as.binary.data = bytes;
        out->as.binary.size = size;
    }
    return LAR_OK;
}

static int decode_mixed(const schema_class *cls, const uint8_t *slot, const kv_val *row, lar_value *out);

/* Decodes the slot of a non-null value of type def->type. */
static int decode_slot(const schema_class *cls, const schema_property *prop, const uint8_t *slot,
                       const kv_val *row, lar_value *out)
{
    const lar_property_def *def = &prop->def;
    out->type = def->type;
    switch (def->type) {
    case LAR_TYPE_INT: memcpy(&out->as.integer, slot, 8); break;
    case LAR_TYPE_LINK:
        out->as.link.cls = prop->target;
        memcpy(&out->as.link.key, slot, 8);
        break;
    case LAR_TYPE_BOOL: out->as.boolean = slot[0] != 0; break;
    case LAR_TYPE_FLOAT: memcpy(&out->as.float32, slot, 4); break;
    case LAR_TYPE_DOUBLE: memcpy(&out->as.float64, slot, 8); break;
    case LAR_TYPE_TIMESTAMP:
        memcpy(&out->as.timestamp.seconds, slot, 8);
        memcpy(&out->as.timestamp.nanoseconds, slot + 8, 4);
        break;
    case LAR_TYPE_OBJECT_ID: memcpy(out->as.object_id.bytes, slot, 12); break;
    case LAR_TYPE_UUID: memcpy(out->as.uuid.bytes, slot, 16); break;
    case LAR_TYPE_DECIMAL128:
        memcpy(&out->as.decimal128.low, slot, 8);
        memcpy(&out->as.decimal128.high, slot + 8, 8);
        break;
    case LAR_TYPE_STRING: case LAR_TYPE_BINARY:
        if (decode_var(cls, slot, row, def->type == LAR_TYPE_STRING, out)) return corrupt(cls);
        break;
    case LAR_TYPE_MIXED: return decode_mixed(cls, slot, row, out);
    default:
        return lar_fail(LAR_ENOTSUP, "%s properties are not supported yet", type_name(def->type));
    }
    return LAR_OK;
}

/* A mixed slot: its type byte says how to read the rest as that type's slot. */
static int decode_mixed(const schema_class *cls, const uint8_t *slot, const kv_val *row, lar_value *out)
{
    uint8_t type = slot[0];
    if (type == LAR_TYPE_NULL) {
        memset(out, 0, sizeof *out);
        return LAR_OK;
    }
    if (type == LAR_TYPE_LIST || type == LAR_TYPE_DICTIONARY) { /* a nested collection's id */
        memset(out, 0, sizeof *out);
        out->type = (lar_type)type;
        memcpy(&out->as.nested, slot + 1, 8);
        return out->as.nested ? LAR_OK : corrupt(cls);
    }
    if (type > LAR_TYPE_LINK) return corrupt(cls);
    schema_property inner;
    memset(&inner, 0, sizeof inner);
    inner.def.type = (lar_type)type;
    int err = decode_slot(cls, &inner, slot + 1, row, out);
    if (!err && type == LAR_TYPE_LINK) memcpy(&out->as.link.cls, slot + 9, 4);
    return err;
}

int row_check_shape(const schema_class *cls, const kv_val *row)
{
    return row_shape_ok(cls, row) ? LAR_OK : corrupt(cls);
}

static bool is_null(const schema_class *cls, const uint8_t *row, uint32_t prop)
{
    return cls->has_optional && (row[cls->fixed_size + prop / 8] & (1u << (prop % 8)));
}

int row_patch(const schema_class *cls, const kv_val *row, uint32_t prop, const lar_value *value,
              byte_buffer *buffer)
{
    int err = row_check_shape(cls, row);
    if (err) return err;
    /* The strings and binaries it keeps must decode, as they must for a full rewrite:
     * damage is reported, never copied on. */
    for (uint32_t i = 0; cls->has_var && i < cls->property_count; i++) {
        lar_type type = cls->properties[i].def.type;
        if (cls->properties[i].def.collection || (type != LAR_TYPE_STRING && type != LAR_TYPE_BINARY) ||
            is_null(cls, row->mv_data, i))
            continue;
        lar_value unused;
        if (decode_var(cls, (const uint8_t *)row->mv_data + cls->properties[i].slot_offset, row,
                       type == LAR_TYPE_STRING, &unused))
            return corrupt(cls);
    }
    buffer->size = 0;
    if (buffer_reserve(buffer, row->mv_size)) return LAR_ENOMEM;
    uint8_t *bytes = buffer->data;
    memcpy(bytes, row->mv_data, row->mv_size);
    buffer->size = row->mv_size;
    const schema_property *p = &cls->properties[prop];
    memset(bytes + p->slot_offset, 0, p->slot_size);
    uint8_t bit = (uint8_t)(1u << (prop % 8));
    if (value->type == LAR_TYPE_NULL) {
        bytes[cls->fixed_size + prop / 8] |= bit; /* only optional properties hold null: the bitmap is there */
        return LAR_OK;
    }
    if (cls->has_optional) bytes[cls->fixed_size + prop / 8] &= (uint8_t)~bit;
    uint32_t no_var = cls->var_at; /* unused: fixed-width values only */
    encode_slot(bytes + p->slot_offset, value, bytes, &no_var);
    return LAR_OK;
}

int row_decode_raw(const schema_class *cls, const kv_val *row, uint32_t prop, lar_value *out)
{
    int err = row_check_shape(cls, row);
    if (err) return err;
    const uint8_t *bytes = row->mv_data;
    const schema_property *p = &cls->properties[prop];
    if (!p->def.collection && !is_null(cls, bytes, prop))
        return decode_slot(cls, p, bytes + p->slot_offset, row, out);
    out->type = LAR_TYPE_NULL; /* a collection is read through its own functions */
    return LAR_OK;
}

int row_decode_for_rewrite(const schema_class *cls, const kv_val *row, lar_value *out)
{
    for (uint32_t i = 0; i < cls->property_count; i++) {
        int err = row_decode_raw(cls, row, i, &out[i]);
        if (err) return err;
        if (cls->properties[i].def.collection) {
            uint64_t id;
            memcpy(&id, (const uint8_t *)row->mv_data + cls->properties[i].slot_offset, 8);
            out[i] = (lar_value){.type = LAR_TYPE_INT, .as.integer = (int64_t)id};
        }
    }
    return LAR_OK;
}

/* Stores an 8-byte number and its type tag. On x86-64 one 16-byte store writes
 * both (and zeroes the padding): half the stores, about 3 ns less per object in
 * the benchmark's scan of eleven ints. */
static inline void put_wide(lar_value *out, uint32_t type, const uint8_t *slot)
{
#if defined(__SSE2__) && defined(__x86_64__)
    int64_t number;
    memcpy(&number, slot, 8);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_set_epi64x(number, (int64_t)type));
#else
    out->type = (lar_type)type;
    memcpy(&out->as.integer, slot, 8);
#endif
}

/* Rows of required ints and doubles: consecutive 8-byte slots, copied straight. */
static void decode_wide(const schema_class *cls, const uint8_t *row, lar_value *restrict out)
{
    const slot_plan *plan = cls->plan;
    for (uint32_t i = 0, count = cls->property_count; i < count; i++) put_wide(&out[i], plan[i].type, row + 8 * i);
}

int row_decode_all(lar_txn *txn, const schema_class *cls, const kv_val *row, lar_value *restrict out)
{
    int err = row_check_shape(cls, row);
    if (err) return err;
    if (cls->all_wide_numbers) {
        decode_wide(cls, row->mv_data, out);
        return LAR_OK;
    }
    /* Locals, not cls fields: stores to out could alias them and force reloads. One pass:
     * numbers, links and (outside a write: the usual kind of read, a scan's names and
     * addresses) strings decode in place; only the other kinds call the general decoder.
     * Against a first pass for numbers and a second for the rest, a third fewer
     * instructions for a row of strings. */
    const uint8_t *bytes = row->mv_data;
    const slot_plan *plan = cls->plan;
    const uint32_t count = cls->property_count;
    const uint8_t *bitmap = cls->has_optional ? bytes + cls->fixed_size : NULL;
    const bool in_place = !txn->write;
    const uint32_t var_at = cls->var_at;
    const size_t var_end = row->mv_size - row_trailer_size(cls); /* row_check_shape: no underflow */
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *slot = bytes + plan[i].offset;
        if (bitmap && ((bitmap[i / 8] >> (i % 8)) & 1)) {
            out[i].type = LAR_TYPE_NULL;
            continue;
        }
        const uint32_t type = plan[i].type;
        out[i].type = (lar_type)type;
        switch (type) {
        case LAR_TYPE_INT: memcpy(&out[i].as.integer, slot, 8); continue;
        case LAR_TYPE_DOUBLE: memcpy(&out[i].as.float64, slot, 8); continue;
        case LAR_TYPE_FLOAT: memcpy(&out[i].as.float32, slot, 4); continue;
        case LAR_TYPE_BOOL: out[i].as.boolean = slot[0] != 0; continue;
        case LAR_TYPE_NULL: continue; /* a collection */
        case LAR_TYPE_LINK:
            out[i].as.link.cls = cls->properties[i].target;
            memcpy(&out[i].as.link.key, slot, 8);
            continue;
        case LAR_TYPE_STRING:
            if (in_place) {
                uint32_t offset, length;
                memcpy(&offset, slot, 4);
                memcpy(&length, slot + 4, 4);
                /* row_var_bytes's checks, with the bounds computed once per row */
                if (offset < var_at || (uint64_t)offset + length + 1 > var_end || bytes[offset + length] != 0)
                    return corrupt(cls);
                out[i].as.string.data = (const char *)bytes + offset;
                out[i].as.string.size = length;
                continue;
            }
            break;
        default: break;
        }
        err = decode_slot(cls, &cls->properties[i], slot, row, &out[i]);
        if (!err && txn->write) err = value_keep_bytes(txn, &out[i]);
        if (err) return err;
    }
    return LAR_OK;
}

/* A write transaction's dirty pages move under later writes: hand out a stable copy. */
int value_keep_bytes(lar_txn *txn, lar_value *value)
{
    if (value->type == LAR_TYPE_STRING) {
        const char *copy = txn_keep(txn, value->as.string.data, value->as.string.size + 1);
        if (!copy) return LAR_ENOMEM;
        value->as.string.data = copy;
    } else if (value->type == LAR_TYPE_BINARY && value->as.binary.size) {
        const void *copy = txn_keep(txn, value->as.binary.data, value->as.binary.size);
        if (!copy) return LAR_ENOMEM;
        value->as.binary.data = copy;
    }
    return LAR_OK;
}

int row_decode(lar_txn *txn, const schema_class *cls, const kv_val *row, uint32_t prop,
               lar_value *out)
{
    int err = row_decode_raw(cls, row, prop, out);
    return err || !txn->write ? err : value_keep_bytes(txn, out);
}

uint64_t row_stamp(const schema_class *cls, const kv_val *row)
{
    uint64_t stamp = 0;
    if (cls->keyed_by_primary && row->mv_size >= cls->stamp_at + ROW_STAMP_SIZE)
        memcpy(&stamp, (const uint8_t *)row->mv_data + cls->stamp_at, sizeof stamp);
    return stamp;
}

void row_set_stamp(const schema_class *cls, byte_buffer *row, uint64_t stamp)
{
    if (cls->keyed_by_primary && row->size >= cls->stamp_at + ROW_STAMP_SIZE)
        memcpy(row->data + cls->stamp_at, &stamp, sizeof stamp);
}
