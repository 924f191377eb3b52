/* Layer 3, codec: values, keys and rows, encoded and decoded. */
#ifndef LARDER_CODEC_H
#define LARDER_CODEC_H

#include "kv/kv.h"

#include <string.h>


/* Checks that value may be stored in prop; returns LAR_OK or the error it recorded. */
int value_check(const schema_class *cls, uint32_t prop, const lar_value *value);
/* The same for an element of the collection prop (or the value of a single one). */
int value_check_element(const schema_class *cls, uint32_t prop, const lar_value *value);
/* Whether value has its property's own fixed-width type, which value_check()
 * accepts without looking further. */
static inline bool value_is_plain(const lar_property_def *def, const lar_value *value)
{
    if (value->type != def->type) return false;
    switch (value->type) {
    case LAR_TYPE_INT: case LAR_TYPE_BOOL: case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE:
    case LAR_TYPE_OBJECT_ID: case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128: return true;
    default: return false;
    }
}
/* Converts accepted aliases (int for float/double, nonzero bool) to the property's own type. */
lar_value value_normalize(const lar_property_def *def, const lar_value *value);
lar_value value_default(const lar_property_def *def);
bool value_equal(const lar_value *a, const lar_value *b);

/* Encodes checked, normalized values into buffer (replacing its contents); an embedded
 * class's row ends with an empty owner. */
int row_encode(const schema_class *cls, const lar_value *values, byte_buffer *buffer);
/* Copies row into buffer (replacing its contents) with prop set to value (checked,
 * normalized, or null): the bytes row_encode would write, without decoding and encoding
 * the other properties. For a property that is neither a collection nor a string,
 * binary or mixed (whose bytes live, or may live, in the variable area). */
int row_patch(const schema_class *cls, const kv_val *row, uint32_t prop, const lar_value *value,
              byte_buffer *buffer);
static inline bool row_can_patch(const lar_property_def *def)
{
    return !def->collection && def->type != LAR_TYPE_STRING && def->type != LAR_TYPE_BINARY &&
           def->type != LAR_TYPE_MIXED;
}
/* The owner of an embedded object (see object/embedded.c): the one link that holds it,
 * kept at the end of its row instead of in the backlink table. count is the number of
 * times that link holds it (0: no owner; a list move holds it twice for a moment). */
typedef struct row_owner {
    lar_objkey origin_key;
    lar_class origin_cls;
    uint32_t prop;
    uint32_t count;
} row_owner;
#define ROW_OWNER_SIZE 20 /* [u64 origin key][u32 origin class][u32 property][u32 count] */
/* The bytes after a row's variable area: an owner for the rows of embedded classes. */
static inline size_t row_trailer_size(const schema_class *cls)
{
    return (cls->flags & LAR_CLASS_EMBEDDED) ? ROW_OWNER_SIZE : 0;
}
/* Reads the owner at the end of a row of an embedded class (row_check_shape accepted). */
void row_owner_read(const kv_val *row, row_owner *out);
/* Writes owner at the end of an encoded row of an embedded class. */
void row_owner_write(uint8_t *row, size_t size, const row_owner *owner);
/* Whether row has room for its slots, bitmap and trailer (and, without strings or
 * binaries, nothing more). */
static inline bool row_shape_ok(const schema_class *cls, const kv_val *row)
{
    size_t fixed = cls->var_at + row_trailer_size(cls);
    return cls->has_var ? row->mv_size >= fixed : row->mv_size == fixed;
}
/* The bytes of the string or binary whose slot starts at slot (in row): false when the
 * slot points outside the variable area, or a string lacks its NUL. */
static inline bool row_var_bytes(const schema_class *cls, const kv_val *row, const uint8_t *slot, bool string,
                                 const uint8_t **data, size_t *size)
{
    uint32_t offset, length;
    memcpy(&offset, slot, 4);
    memcpy(&length, slot + 4, 4);
    size_t end = row->mv_size - (row->mv_size < row_trailer_size(cls) ? row->mv_size : row_trailer_size(cls));
    if (offset < cls->var_at || (uint64_t)offset + length + (string ? 1 : 0) > end) return false;
    const uint8_t *bytes = (const uint8_t *)row->mv_data + offset;
    if (string && bytes[length] != 0) return false;
    *data = bytes;
    *size = length;
    return true;
}
/* LAR_ECORRUPT (recorded) unless row has the shape of cls's rows. */
int row_check_shape(const schema_class *cls, const kv_val *row);
/* Decodes every property to write the row again: strings point into row, and
 * collections give their stored id as an int (which row_encode writes back). */
int row_decode_for_rewrite(const schema_class *cls, const kv_val *row, lar_value *out);
/* Decodes one property; strings point into row; a collection reads as null. */
int row_decode_raw(const schema_class *cls, const kv_val *row, uint32_t prop, lar_value *out);
/* Decodes every property into out; strings are copied into txn when it writes. */
int row_decode_all(lar_txn *txn, const schema_class *cls, const kv_val *row, lar_value *restrict out);
/* Copies a string's or binary's bytes into txn when it writes (LMDB's dirty pages move
 * under later writes); LAR_ENOMEM (not recorded) when out of memory. */
int value_keep_bytes(lar_txn *txn, lar_value *value);
/* The stamp of a row of a class keyed by its primary key (see row.c), 0 for other classes. */
uint64_t row_stamp(const schema_class *cls, const kv_val *row);
/* Sets the stamp of an encoded row (row_encode leaves it 0); nothing for other classes. */
void row_set_stamp(const schema_class *cls, byte_buffer *row, uint64_t stamp);
/* Decodes one property; strings are copied into txn when it writes. */
int row_decode(lar_txn *txn, const schema_class *cls, const kv_val *row, uint32_t prop,
               lar_value *out);

/* Elements of lists and values of maps (element.c). */
/* The size of the encoded element at `at`, or 0 when it is damaged or passes left bytes. */
size_t element_size(const uint8_t *at, size_t left);
/* The tag of a link that carries its class: the elements of mixed collections. */
#define ELEMENT_TYPED_LINK (0x80 | LAR_TYPE_LINK)
/* typed: the element of a mixed collection, whose links carry their class. */
size_t element_encoded_size(const lar_value *value, bool typed);
/* Encodes a checked, normalized value into element_encoded_size() bytes. */
void element_encode(const lar_value *value, bool typed, uint8_t *out);
/* Decodes an element element_size() accepted; strings and binaries point into it; a
 * link takes target as its class unless it carries its own. */
void element_decode(const uint8_t *at, lar_class target, lar_value *out);

/* A decimal128's value (decimal.c): finite ones as [-]coefficient * 10^exponent, one
 * form per value (no trailing zeros in the coefficient; zero is 0E0, never negative). */
typedef struct decimal_parts {
    enum { DECIMAL_FINITE, DECIMAL_INFINITY, DECIMAL_NAN } kind;
    bool negative;
    unsigned __int128 coefficient;
    int exponent;
} decimal_parts;
void decimal_split(lar_decimal128 d, decimal_parts *out);
/* The value when it is an integer that int64_t holds; false otherwise. */
bool decimal_to_int64(const decimal_parts *x, int64_t *out);
/* The double nearest the value (correctly rounded; an infinity beyond a double's range). */
double decimal_nearest_double(const decimal_parts *x);
/* -1, 0 or 1 as a finite value is below, equal to or above d (not NaN), exactly. */
int decimal_compare_double(const decimal_parts *x, double d);
/* floor(x - d) for a finite x within 1024 of an integral d of magnitude 2^53 to 2^63. */
int64_t decimal_floor_minus(const decimal_parts *x, double d);
/* An order-preserving encoding of a finite nonzero value (memcmp orders values, equal
 * values encode alike); at most 21 bytes. Returns its length. */
size_t decimal_order_encode(const decimal_parts *x, uint8_t *out);

#define KEY_MAX 480
/* Order-preserving key encodings compared by memcmp. Return the encoded length. */
size_t key_encode_primary(lar_class cls, const lar_value *value, uint8_t *out);
size_t key_encode_index(lar_class cls, uint32_t prop, const lar_value *value, uint8_t *out);
size_t key_encode_class_prefix(lar_class cls, uint8_t *out);
/* A collection element, order-preserving and one-to-one (so equal elements have equal
 * keys: -0.0 is stored as 0.0, every NaN as one NaN); a string keeps its NUL, so that a
 * decoded one can point into the key. Returns 0 when it needs more than room bytes. */
size_t key_encode_element(const lar_value *value, uint8_t *out, size_t room);
/* Decodes an element of a collection of type (links: to target); strings and binaries
 * point into bytes. False when the bytes are not such an element. */
bool key_decode_element(const uint8_t *bytes, size_t size, lar_type type, lar_class target, lar_value *out);
/* An element of a set of mixed values: kinds ranked as Realm's, numbers compared by
 * value (int 1, double 1.0 and decimal128 1 encode alike). Returns 0 when it needs more than room. */
size_t key_encode_mixed(const lar_value *value, uint8_t *out, size_t room);
/* The link a key_encode_mixed() key holds; false when it holds no link. */
bool key_decode_mixed_link(const uint8_t *bytes, size_t size, lar_obj *out);
/* Decodes a key_encode_mixed() key of any kind but a number (whose key does not say
 * whether it was an int, a float, a double or a decimal); strings and binaries point into bytes.
 * False for a number or bytes that are no such key. */
bool key_decode_mixed(const uint8_t *bytes, size_t size, lar_value *out);
/* Whether a key_encode_mixed() key is a number's. */
bool key_mixed_is_number(const uint8_t *bytes, size_t size);

#endif
