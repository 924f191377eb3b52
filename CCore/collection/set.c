/* Sets: elements packed, in their encoded order, into blocks of the keyed table, so
 * that a set of any size costs O(log n) LMDB work plus O(block) bytes per insert,
 * remove or lookup, and nothing is ever rewritten whole:
 *
 *   block:   key   [set id u64 BE][the block's first element, encoded]
 *            value [element count u16 LE][elements: (length, encoding) ...]
 *   count:   key   [set id u64 BE]  value u64 count (sorts before the set's blocks)
 *
 * Elements use the order-preserving, one-to-one encoding of codec's key_encode_element;
 * each is preceded by its length, one byte below 0x80, else two (0x80 | high, low).
 * A block's elements ascend, each block's are all below the next block's, and its key
 * repeats its first element, so the block that holds (or would hold) an element is the
 * last whose key is not above the element's key: one seek. A value holds at most
 * BLOCK_MAX bytes (it stays inside a leaf page: no overflow pages). An insert that
 * overflows a block splits it in two; a remove that leaves it below BLOCK_MIN merges it
 * with a neighbour when the two fit in BLOCK_FILL; an emptied block is deleted.
 *
 * The owner's row slot holds the set id, 0 while the set is empty (an emptied set
 * gives its id up). Elements are unique by their encoding and iterate in its order:
 * numbers, timestamps and strings (bytewise) ascending. The set algebra walks the two
 * sets side by side, as a merge of sorted lists; the changing set's blocks that change,
 * each run of consecutive ones together, are rewritten once as new blocks filled to
 * BLOCK_FILL. An element's encoding must fit a key (a block's first element is its key):
 * strings and binaries of sets hold at most LAR_SET_ELEMENT_MAX bytes.
 *
 * Sets of mixed values encode their elements with key_encode_mixed instead: ranked by
 * kind, numbers by value, so that int 1, float 1.0 and double 1.0 are one element. That
 * key orders the set, keys its blocks and decides equality; it decodes back to the value
 * for every kind but numbers, whose key does not say whether it was an int, a float, a
 * double or a decimal. A number's entry therefore carries its typed element encoding (codec/element.c)
 * as first inserted, which reads return:
 *
 *   entry:   [0x80 | 0x40 | length high][length low][key encoding][u8 size][typed number]
 *
 * (the 0x40 bit, free since an element is shorter than 0x4000 bytes, marks it; every
 * other entry is as above). Comparisons, block keys and the algebra's merge use the key
 * encoding alone; the algebra copies whole entries, so an element keeps its form: a
 * union adds the other set's entry, and an element both sets hold keeps this one's. The
 * links held in mixed values keep the backlink index as a set of links does, and a
 * deleted target leaves the set. Strings and binaries of sets of mixed values hold at
 * most LAR_SET_ELEMENT_MAX bytes too (their key is the bytes and a tag, and a NUL for a
 * string: the longest fits a key, and carries no typed copy). */
#include "collection/collection.h"

#include <stdlib.h>
#include <string.h>

#define SET_KEY_MAX KEY_MAX
#define ELEMENT_MAX (SET_KEY_MAX - ID_SIZE)   /* the longest encoded element */
#define TYPED_MAX 17                          /* the longest typed number beside a mixed key (a decimal) */
#define ENTRY_MAX (2 + ELEMENT_MAX + 1 + TYPED_MAX) /* with its length (and a typed number) */
#define BLOCK_MAX 1024                        /* a block's value, its header included */
#define BLOCK_HEADER 2
#define PAYLOAD_MAX (BLOCK_MAX - BLOCK_HEADER)
#define BLOCK_FILL (PAYLOAD_MAX * 3 / 4)      /* bulk rewrites fill blocks this far */
#define BLOCK_MIN (PAYLOAD_MAX / 4)           /* a smaller block merges with a neighbour */
_Static_assert(LAR_SET_ELEMENT_MAX + 2 <= ELEMENT_MAX, "a set's longest element fits a key");
_Static_assert(2 * ENTRY_MAX <= PAYLOAD_MAX, "a block holds two of the longest elements");
_Static_assert(ELEMENT_MAX < 0x4000, "an element's length fits its two-byte form, beside the typed flag");

static int corrupt(void)
{
    return lar_fail(LAR_ECORRUPT, "a set's storage is undecodable");
}

/* ---- elements and blocks ---- */

/* An element's key (set id and encoded element) and, for a number in a set of mixed
 * values, its typed encoding, which its entry carries. */
typedef struct member_key {
    uint8_t bytes[SET_KEY_MAX];
    size_t size;
    uint8_t typed[TYPED_MAX];
    size_t typed_size;
} member_key;

static int encode_member(const collection_ref *set, uint64_t id, const lar_value *value, member_key *out)
{
    keyed_prefix(out->bytes, id);
    size_t length = value->type == LAR_TYPE_STRING ? value->as.string.size
                  : value->type == LAR_TYPE_BINARY ? value->as.binary.size : 0;
    bool mixed = set->prop->def.type == LAR_TYPE_MIXED;
    size_t size = length > LAR_SET_ELEMENT_MAX ? 0
                : mixed ? key_encode_mixed(value, out->bytes + ID_SIZE, SET_KEY_MAX - ID_SIZE)
                        : key_encode_element(value, out->bytes + ID_SIZE, SET_KEY_MAX - ID_SIZE);
    if (!size)
        return lar_fail(LAR_EINVAL, "set '%s.%s' holds strings and binaries of at most %d bytes", set->cls->name,
                        set->prop->def.name, LAR_SET_ELEMENT_MAX);
    out->size = ID_SIZE + size;
    out->typed_size = 0;
    if (mixed && key_mixed_is_number(out->bytes + ID_SIZE, size)) {
        out->typed_size = element_encoded_size(value, true);
        if (out->typed_size > TYPED_MAX) return lar_fail(LAR_EINVAL, "a mixed number's encoding is too long");
        element_encode(value, true, out->typed);
    }
    return LAR_OK;
}

/* Bytewise, a prefix first, as LMDB orders keys; inline, eight bytes at a time: most
 * elements are a tag and eight bytes, and the set algebra compares every one. */
static inline int compare_elements(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
#elif !defined(__BYTE_ORDER__)
            return memcmp(a + i, b + i, 8);
#endif
            return x < y ? -1 : 1;
        }
    }
    for (; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return (an > bn) - (an < bn);
}

/* Reads the entry at *at (before end): its element and its typed number (NULL, 0 when
 * it has none), and moves *at past it; false when malformed. */
static inline bool entry_at(const uint8_t **at, const uint8_t *end, const uint8_t **element, size_t *size,
                            const uint8_t **typed, size_t *typed_size)
{
    const uint8_t *p = *at;
    if (p >= end) return false;
    size_t length = *p++;
    bool with_typed = false;
    if (length & 0x80) {
        if (p >= end) return false;
        with_typed = length & 0x40;
        length = (length & 0x3f) << 8 | *p++;
    }
    if (!length || length > ELEMENT_MAX || (size_t)(end - p) < length) return false;
    *element = p;
    *size = length;
    p += length;
    *typed = NULL;
    *typed_size = 0;
    if (with_typed) {
        size_t n = p < end ? *p++ : 0;
        if (!n || n > TYPED_MAX || (size_t)(end - p) < n) return false;
        *typed = p;
        *typed_size = n;
        p += n;
    }
    *at = p;
    return true;
}

/* entry_at for the element alone: what orders and keys the entry. */
static inline bool element_at(const uint8_t **at, const uint8_t *end, const uint8_t **element, size_t *size)
{
    const uint8_t *typed;
    size_t typed_size;
    return entry_at(at, end, element, size, &typed, &typed_size);
}

static inline size_t put_entry(uint8_t *out, const uint8_t *element, size_t size, const uint8_t *typed,
                               size_t typed_size)
{
    size_t head = 0;
    if (size >= 0x80 || typed_size) out[head++] = (uint8_t)(0x80 | (typed_size ? 0x40 : 0) | size >> 8);
    out[head++] = (uint8_t)size;
    memcpy(out + head, element, size);
    if (!typed_size) return head + size;
    out[head + size] = (uint8_t)typed_size;
    memcpy(out + head + size + 1, typed, typed_size);
    return head + size + 1 + typed_size;
}

/* A block as read: pointers into the transaction's pages, valid until the next write. */
typedef struct block {
    const uint8_t *key;
    size_t key_size;
    const uint8_t *payload; /* the elements */
    size_t size;
    uint32_t count;
} block;

static bool in_set(const kv_val *key, const uint8_t *prefix)
{
    return key->mv_size > ID_SIZE && !memcmp(key->mv_data, prefix, ID_SIZE);
}

/* Checks a block's size, count and that its key is its first element. The rest is
 * checked by whatever reads it, element after element (element_at). */
static int block_open(const kv_val *key, const kv_val *data, block *out)
{
    const uint8_t *bytes = data->mv_data;
    if (key->mv_size <= ID_SIZE || data->mv_size <= BLOCK_HEADER || data->mv_size > BLOCK_MAX) return corrupt();
    uint32_t count = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8;
    const uint8_t *at = bytes + BLOCK_HEADER, *end = bytes + data->mv_size, *first;
    size_t first_size;
    if (!count || !element_at(&at, end, &first, &first_size) || first_size != key->mv_size - ID_SIZE ||
        memcmp(first, (const uint8_t *)key->mv_data + ID_SIZE, first_size))
        return corrupt();
    *out = (block){key->mv_data, key->mv_size, bytes + BLOCK_HEADER, data->mv_size - BLOCK_HEADER, count};
    return LAR_OK;
}

/* Where an element is or would go in a block: the first element not below it (*offset;
 * the block's size when none is); *equal when that is the element, whose entry then
 * ends at *past. */
static int block_find(const block *b, const uint8_t *element, size_t size, size_t *offset, size_t *past, bool *equal)
{
    const uint8_t *at = b->payload, *end = b->payload + b->size, *next = at;
    *equal = false;
    while (at < end) {
        const uint8_t *x;
        size_t xs;
        next = at;
        if (!element_at(&next, end, &x, &xs)) return corrupt();
        int order = compare_elements(x, xs, element, size);
        if (order >= 0) {
            *equal = !order;
            break;
        }
        at = next;
    }
    *offset = (size_t)(at - b->payload);
    *past = (size_t)(next - b->payload);
    return LAR_OK;
}

/* The block of a set where an element belongs: the last whose key is not above the
 * element's (`at`, found) or, when every block's is, the set's first (`after`). */
typedef struct located {
    block at, after;
    bool found, has_after;
} located;

/* Leaves the cursor on `at` when found, else on `after` if there is one. */
static int locate(kv_cursor *cursor, const member_key *k, located *out)
{
    out->found = out->has_after = false;
    kv_val key = {k->size, (void *)k->bytes}, data;
    int rc = kv_cursor_step(cursor, &key, &data, KV_SEEK);
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (!rc && key.mv_size == k->size && !memcmp(key.mv_data, k->bytes, k->size)) {
        out->found = true;
        return block_open(&key, &data, &out->at);
    }
    if (!rc && in_set(&key, k->bytes)) {
        int err = block_open(&key, &data, &out->after);
        if (err) return err;
        out->has_after = true;
    }
    rc = kv_cursor_step(cursor, &key, &data, rc ? KV_LAST : KV_PREV);
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (!rc && in_set(&key, k->bytes)) {
        out->found = true;
        return block_open(&key, &data, &out->at);
    }
    if (out->has_after) { /* back onto it */
        key = (kv_val){out->after.key_size, (void *)out->after.key};
        rc = kv_cursor_step(cursor, &key, &data, KV_SEEK);
        if (rc) return rc == KV_NOTFOUND ? corrupt() : lar_fail_mdb(rc, "cannot read a set");
    }
    return LAR_OK;
}

/* ---- writing blocks ---- */

/* Cuts a run of elements into blocks of about equal size: as few as hold it when
 * filled to `fill`, none over PAYLOAD_MAX. */
typedef struct chunker {
    const uint8_t *at, *end;
    size_t goal;
    uint32_t whole;               /* the run's count when it makes one block, else 0 */
    bool bad;                     /* an undecodable element (a damaged block was copied) */
    const uint8_t *start, *first; /* the current block: its elements, its first element */
    size_t size, first_size;
    uint32_t count;
} chunker;

static void chunker_init(chunker *c, const uint8_t *payload, size_t size, size_t count, size_t fill)
{
    size_t blocks = (size + fill - 1) / fill;
    c->goal = blocks ? (size + blocks - 1) / blocks : 0;
    c->whole = blocks == 1 && count <= PAYLOAD_MAX ? (uint32_t)count : 0;
    c->bad = false;
    c->at = payload;
    c->end = payload + size;
}

static bool chunker_next(chunker *c)
{
    c->start = c->at;
    c->size = 0;
    c->count = 0;
    if (c->at < c->end && c->whole) { /* one block: no need to walk it */
        const uint8_t *next = c->at;
        c->bad = !element_at(&next, c->end, &c->first, &c->first_size);
        c->size = c->bad ? 0 : (size_t)(c->end - c->at);
        c->count = c->bad ? 0 : c->whole;
        c->at = c->end;
        return c->count > 0;
    }
    while (c->at < c->end) {
        const uint8_t *next = c->at, *element;
        size_t size;
        if (!element_at(&next, c->end, &element, &size)) {
            c->bad = true;
            c->at = c->end;
            return false;
        }
        size_t entry = (size_t)(next - c->at);
        if (c->count && (c->size >= c->goal || c->size + entry > PAYLOAD_MAX)) break;
        if (!c->count) {
            c->first = element;
            c->first_size = size;
        }
        c->size += entry;
        c->count++;
        c->at = next;
    }
    return c->count > 0;
}

static int put_block(lar_txn *txn, kv_cursor *cursor, const chunker *c, uint8_t *key, uint8_t *value,
                     unsigned int flags)
{
    value[0] = (uint8_t)c->count;
    value[1] = (uint8_t)(c->count >> 8);
    memcpy(value + BLOCK_HEADER, c->start, c->size);
    memcpy(key + ID_SIZE, c->first, c->first_size);
    kv_val k = {ID_SIZE + c->first_size, key}, data = {BLOCK_HEADER + c->size, value};
    return txn_cursor_put(txn, cursor, &k, &data, flags);
}

/* Replaces consecutive blocks of set id, whose keys old holds (old_size bytes of
 * [u16 size][key] records, in key order), by payload's count elements (in order) cut
 * into blocks, through cursor. The first new block overwrites the first old one when
 * it has its key; the other old ones are deleted as the cursor walks over them. */
static int rewrite(lar_txn *txn, kv_cursor *cursor, uint64_t id, const uint8_t *old, size_t old_size,
                   const uint8_t *payload, size_t size, size_t count, size_t fill)
{
    uint8_t key[SET_KEY_MAX], value[BLOCK_MAX];
    keyed_prefix(key, id);
    chunker c;
    chunker_init(&c, payload, size, count, fill);
    bool more = chunker_next(&c);
    int err = LAR_OK;
    for (size_t at = 0; !err && at + 2 <= old_size;) {
        uint16_t key_size;
        memcpy(&key_size, old + at, 2);
        const uint8_t *expected = old + at + 2;
        kv_val k = {key_size, (void *)expected}, data;
        int rc = kv_cursor_step(cursor, &k, &data, at ? KV_NEXT : KV_SEEK);
        if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
        if (rc || k.mv_size != key_size || memcmp(k.mv_data, expected, key_size)) return corrupt();
        if (!at && more && c.first_size == (size_t)key_size - ID_SIZE && !memcmp(c.first, expected + ID_SIZE, c.first_size)) {
            err = put_block(txn, cursor, &c, key, value, KV_CURRENT);
            more = chunker_next(&c);
        } else {
            err = txn_cursor_del(txn, cursor);
        }
        at += 2 + (size_t)key_size;
    }
    for (; !err && more; more = chunker_next(&c)) err = put_block(txn, cursor, &c, key, value, 0);
    return !err && c.bad ? corrupt() : err;
}

/* Appends a [u16 size][key] record of a block's key. */
static size_t note_key(uint8_t *out, const block *b)
{
    uint16_t size = (uint16_t)b->key_size;
    memcpy(out, &size, 2);
    memcpy(out + 2, b->key, b->key_size);
    return 2 + b->key_size;
}

static int note_key_buffer(byte_buffer *out, const block *b)
{
    int err = buffer_reserve(out, 2 + b->key_size);
    if (!err) out->size += note_key(out->data + out->size, b);
    return err;
}

/* ---- one element ---- */

/* Whether an encoded member is a link (every member of a set of links, the links of a
 * set of mixed values), and which. */
static bool member_link(const collection_ref *set, const uint8_t *element, size_t size, lar_obj *out)
{
    if (set->prop->def.type == LAR_TYPE_MIXED) return key_decode_mixed_link(element, size, out);
    if (set->prop->def.type != LAR_TYPE_LINK) return false;
    lar_value value;
    if (!key_decode_element(element, size, LAR_TYPE_LINK, set->prop->target, &value) || value.type != LAR_TYPE_LINK)
        *out = (lar_obj){set->prop->target, 0};
    else
        *out = value.as.link;
    return true;
}

/* Whether a set's elements may be links, whose backlinks it keeps. */
static bool holds_links(const collection_ref *set)
{
    return set->prop->def.type == LAR_TYPE_LINK || set->prop->def.type == LAR_TYPE_MIXED;
}

/* Records an element change of the set in the change log (entry: the element's
 * entry, as a block holds it). */
static int log_member(lar_txn *txn, const collection_ref *set, list_op_kind kind, const uint8_t *entry, size_t size)
{
    return changes_logged(txn) ? changes_element(txn, set->obj, set->prop_index, kind, entry, size) : LAR_OK;
}

static int log_clear(lar_txn *txn, const collection_ref *set)
{
    return changes_logged(txn) ? changes_element(txn, set->obj, set->prop_index, COLL_OP_CLEAR, NULL, 0) : LAR_OK;
}

static int open_cursor(lar_txn *txn, kv_cursor **out)
{
    int rc = kv_cursor_open(txn, txn->schema->keyed_dbi, out);
    return rc ? lar_fail_mdb(rc, "cannot read a set") : LAR_OK;
}

/* Whether set id (not 0) holds the element of key. */
static int find_member(lar_txn *txn, const member_key *key, bool *found)
{
    kv_cursor *cursor;
    located loc;
    int err = open_cursor(txn, &cursor);
    if (err) return err;
    err = locate(cursor, key, &loc);
    *found = false;
    size_t offset, past;
    if (!err && loc.found) err = block_find(&loc.at, key->bytes + ID_SIZE, key->size - ID_SIZE, &offset, &past, found);
    kv_cursor_close(cursor);
    return err;
}

/* Adds the element of key to set id unless it holds it (*added tells). */
static int add_member(lar_txn *txn, const collection_ref *set, uint64_t id, const member_key *key, bool *added)
{
    const uint8_t *element = key->bytes + ID_SIZE;
    size_t element_size = key->size - ID_SIZE, size = 0, old_size = 0, count = 1;
    uint8_t payload[PAYLOAD_MAX + ENTRY_MAX], old[2 + SET_KEY_MAX];
    kv_cursor *cursor;
    located loc;
    *added = false;
    int err = open_cursor(txn, &cursor);
    if (err) return err;
    err = locate(cursor, key, &loc);
    if (!err && loc.found) {
        bool equal;
        size_t before, past;
        err = block_find(&loc.at, element, element_size, &before, &past, &equal);
        if (!err && !equal) {
            count = loc.at.count + 1;
            memcpy(payload, loc.at.payload, before);
            size = before + put_entry(payload + before, element, element_size, key->typed, key->typed_size);
            memcpy(payload + size, loc.at.payload + before, loc.at.size - before);
            size += loc.at.size - before;
            old_size = note_key(old, &loc.at);
        }
    } else if (!err) { /* before every element, or into an empty set */
        size = put_entry(payload, element, element_size, key->typed, key->typed_size);
        if (loc.has_after) {
            count = loc.after.count + 1;
            memcpy(payload + size, loc.after.payload, loc.after.size);
            size += loc.after.size;
            old_size = note_key(old, &loc.after);
        }
    }
    if (!err && size) err = rewrite(txn, cursor, id, old, old_size, payload, size, count, PAYLOAD_MAX);
    kv_cursor_close(cursor);
    if (err || !size) return err;
    uint64_t total;
    err = keyed_count(txn, id, &total);
    if (!err) err = keyed_count_store(txn, id, total + 1);
    lar_obj link;
    if (!err && member_link(set, element, element_size, &link)) err = backlink_add(txn, link, set->obj, set->prop_index);
    if (!err && changes_logged(txn)) {
        uint8_t entry[ENTRY_MAX];
        err = log_member(txn, set, SET_OP_INSERT, entry, put_entry(entry, element, element_size, key->typed, key->typed_size));
    }
    if (!err) *added = true;
    return err;
}

/* A neighbour of a shrunk block, when the two fit in BLOCK_FILL together: the next
 * block (the cursor is on the shrunk one), else the previous. */
static int small_neighbour(kv_cursor *cursor, const block *shrunk, size_t size, block *out, bool *next, bool *found)
{
    kv_val key, data;
    *found = false;
    int rc = kv_cursor_step(cursor, &key, &data, KV_NEXT);
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (!rc && in_set(&key, shrunk->key)) {
        int err = block_open(&key, &data, out);
        if (err || out->size + size <= BLOCK_FILL) {
            *next = *found = !err;
            return err;
        }
    }
    key = (kv_val){shrunk->key_size, (void *)shrunk->key};
    rc = kv_cursor_step(cursor, &key, &data, KV_SEEK);
    if (!rc) rc = kv_cursor_step(cursor, &key, &data, KV_PREV);
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (!rc && in_set(&key, shrunk->key)) {
        int err = block_open(&key, &data, out);
        if (err || out->size + size <= BLOCK_FILL) {
            *next = false;
            *found = !err;
            return err;
        }
    }
    return LAR_OK;
}

/* Removes the element of key from the set unless it lacks it (*removed tells); an
 * emptied set gives its id up. */
static int drop_member(lar_txn *txn, const collection_ref *set, const member_key *key, bool *removed)
{
    const uint8_t *element = key->bytes + ID_SIZE;
    size_t element_size = key->size - ID_SIZE, size = 0, old_size = 0, count = 0;
    uint8_t payload[PAYLOAD_MAX + BLOCK_FILL], old[2 * (2 + SET_KEY_MAX)], entry[ENTRY_MAX];
    size_t entry_size = 0;
    kv_cursor *cursor;
    located loc;
    bool equal = false;
    *removed = false;
    if (!set->root) return LAR_OK;
    int err = open_cursor(txn, &cursor);
    if (err) return err;
    err = locate(cursor, key, &loc);
    if (!err && loc.found) {
        size_t before, after;
        err = block_find(&loc.at, element, element_size, &before, &after, &equal);
        if (!err && equal) { /* the stored entry (a mixed number as first inserted) for the log */
            entry_size = after - before;
            memcpy(entry, loc.at.payload + before, entry_size);
            block neighbour;
            bool next = false, merge = false;
            size = loc.at.size - (after - before);
            if (size && size < BLOCK_MIN) err = small_neighbour(cursor, &loc.at, size, &neighbour, &next, &merge);
            count = loc.at.count - 1 + (merge ? neighbour.count : 0);
            if (merge && !next) { /* the previous block, then this one */
                memcpy(payload, neighbour.payload, neighbour.size);
                old_size = note_key(old, &neighbour);
                size = neighbour.size;
            } else {
                size = 0;
            }
            memcpy(payload + size, loc.at.payload, before);
            memcpy(payload + size + before, loc.at.payload + after, loc.at.size - after);
            size += loc.at.size - (after - before);
            old_size += note_key(old + old_size, &loc.at);
            if (merge && next) {
                memcpy(payload + size, neighbour.payload, neighbour.size);
                size += neighbour.size;
                old_size += note_key(old + old_size, &neighbour);
            }
        }
    }
    if (!err && equal) err = rewrite(txn, cursor, set->root, old, old_size, payload, size, count, PAYLOAD_MAX);
    kv_cursor_close(cursor);
    if (err || !equal) return err;
    uint64_t total;
    err = keyed_count(txn, set->root, &total);
    if (!err) err = keyed_count_store(txn, set->root, total ? total - 1 : 0);
    if (!err && total <= 1) err = collection_write_root(txn, set, 0);
    lar_obj link;
    if (!err && member_link(set, element, element_size, &link))
        err = backlink_remove(txn, link, set->obj, set->prop_index);
    if (!err) err = log_member(txn, set, SET_OP_REMOVE, entry, entry_size);
    if (!err) *removed = true;
    return err;
}

/* ---- walking a set ---- */

/* Calls visit with each block of set id, in order; visit returns LAR_OK to go on, 1 to stop. */
typedef int (*block_visitor)(const block *b, void *context);

static int walk_blocks(lar_txn *txn, uint64_t id, block_visitor visit, void *context)
{
    if (!id) return LAR_OK;
    uint8_t prefix[ID_SIZE];
    keyed_prefix(prefix, id);
    kv_cursor *cursor;
    int err = open_cursor(txn, &cursor);
    if (err) return err;
    kv_val key = {ID_SIZE, prefix}, data;
    int rc;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc && !err; rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        if (key.mv_size < ID_SIZE || memcmp(key.mv_data, prefix, ID_SIZE)) break;
        if (key.mv_size == ID_SIZE) continue; /* the count */
        block b;
        err = block_open(&key, &data, &b);
        if (!err) err = visit(&b, context);
    }
    kv_cursor_close(cursor);
    if (err == 1) return LAR_OK;
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot read a set");
    return err;
}

/* Calls visit with each encoded element of the set (key's id) above key's element
 * (every one when after is false), and its typed number (NULL, 0 when it has none), in
 * order; visit returns LAR_OK to go on, 1 to stop. */
typedef int (*member_visitor)(const uint8_t *element, size_t size, const uint8_t *typed, size_t typed_size,
                              void *context);

static int visit_block(const block *b, const member_key *after, member_visitor visit, void *context)
{
    const uint8_t *at = b->payload, *end = b->payload + b->size, *element, *typed;
    size_t size, typed_size;
    int err = LAR_OK;
    while (!err && at < end) {
        if (!entry_at(&at, end, &element, &size, &typed, &typed_size)) return corrupt();
        if (!after || compare_elements(element, size, after->bytes + ID_SIZE, after->size - ID_SIZE) > 0)
            err = visit(element, size, typed, typed_size, context);
    }
    return err;
}

static int walk_members_after(lar_txn *txn, const member_key *key, member_visitor visit, void *context)
{
    kv_cursor *cursor;
    located loc;
    int err = open_cursor(txn, &cursor);
    if (err) return err;
    err = locate(cursor, key, &loc);
    bool more = !err && (loc.found || loc.has_after);
    if (more) err = visit_block(loc.found ? &loc.at : &loc.after, key, visit, context);
    int rc = 0;
    while (more && !err) {
        kv_val k, data;
        block b;
        rc = kv_cursor_step(cursor, &k, &data, KV_NEXT);
        if (rc || !in_set(&k, key->bytes)) break;
        err = block_open(&k, &data, &b);
        if (!err) err = visit_block(&b, NULL, visit, context);
    }
    kv_cursor_close(cursor);
    if (err == 1) return LAR_OK;
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot read a set");
    return err;
}

typedef struct member_walk {
    member_visitor visit;
    void *context;
} member_walk;

static int visit_all(const block *b, void *context)
{
    const member_walk *walk = context;
    return visit_block(b, NULL, walk->visit, walk->context);
}

static int walk_members(lar_txn *txn, uint64_t id, const member_key *after, member_visitor visit, void *context)
{
    if (!id) return LAR_OK;
    if (after) return walk_members_after(txn, after, visit, context);
    member_walk walk = {visit, context};
    return walk_blocks(txn, id, visit_all, &walk);
}

/* Encoded elements collected for changes made after a walk: (u32 size, bytes) records. */
static int collect_member(const uint8_t *element, size_t size, const uint8_t *typed, size_t typed_size,
                          void *context)
{
    (void)typed;
    (void)typed_size;
    uint32_t length = (uint32_t)size;
    int err = buffer_append(context, &length, 4);
    return err ? err : buffer_append(context, element, size);
}

/* Drops every block (and each element's backlink) and the count; the id is given up. */
static int drop_all(lar_txn *txn, const collection_ref *set, uint64_t id)
{
    uint8_t prefix[ID_SIZE];
    keyed_prefix(prefix, id);
    byte_buffer links = {0};
    kv_cursor *cursor;
    int err = open_cursor(txn, &cursor);
    if (err) return err;
    kv_val key = {ID_SIZE, prefix}, data;
    int rc = kv_cursor_step(cursor, &key, &data, KV_SEEK);
    if (!rc && key.mv_size == ID_SIZE && !memcmp(key.mv_data, prefix, ID_SIZE))
        rc = kv_cursor_step(cursor, &key, &data, KV_NEXT); /* the count, stored below */
    while (!err && !rc && in_set(&key, prefix)) {
        block b;
        err = block_open(&key, &data, &b);
        if (!err && holds_links(set)) err = visit_block(&b, NULL, collect_member, &links);
        if (!err) err = txn_cursor_del(txn, cursor);
        if (!err) rc = kv_cursor_step(cursor, &key, &data, KV_NEXT);
    }
    kv_cursor_close(cursor);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot read a set");
    for (size_t at = 0; !err && at < links.size;) {
        uint32_t size;
        memcpy(&size, links.data + at, 4);
        lar_obj link;
        if (member_link(set, links.data + at + 4, size, &link))
            err = backlink_remove_all(txn, link, set->obj, set->prop_index);
        at += 4 + (size_t)size;
    }
    if (!err) err = keyed_count_store(txn, id, 0);
    buffer_free(&links);
    return err;
}

int set_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id)
{
    collection_ref set = {.cls = schema_class_at(txn->schema, obj.cls), .prop = prop, .obj = obj,
                          .prop_index = prop_index, .root = id};
    return drop_all(txn, &set, id);
}

int set_remove_target(lar_txn *txn, const collection_ref *set, lar_obj target)
{
    lar_value link = {.type = LAR_TYPE_LINK};
    link.as.link = target;
    member_key key;
    bool removed;
    int err = set->root ? encode_member(set, set->root, &link, &key) : LAR_OK;
    return err || !set->root ? err : drop_member(txn, set, &key, &removed);
}

/* ---- the public functions ---- */

static int open_set(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, collection_ref *out)
{
    return collection_open(txn, write, obj, prop, LAR_COLLECTION_SET, out);
}

/* Checks an element's type (not whether a link's target exists: a deleted object
 * is in no set) and encodes it for the set. */
static int encode_query(const collection_ref *set, const lar_value *value, member_key *out)
{
    if (!value) return lar_fail(LAR_EINVAL, "the value is NULL");
    int err = value_check_element(set->cls, set->prop_index, value);
    lar_value normalized = value_normalize(&set->prop->def, value);
    return err ? err : encode_member(set, set->root, &normalized, out);
}

int lar_set_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_count: out is NULL");
    collection_ref set;
    uint64_t count;
    int err = open_set(txn, false, obj, prop, &set);
    if (!err) err = keyed_count(txn, set.root, &count);
    if (!err) *out = (size_t)count;
    return err;
}

int lar_set_contains(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_contains: out is NULL");
    collection_ref set;
    member_key key;
    int err = open_set(txn, false, obj, prop, &set);
    if (!err) err = encode_query(&set, value, &key);
    bool found = false;
    if (!err && set.root) err = find_member(txn, &key, &found);
    if (!err) *out = found;
    return err;
}

static int insert_member(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *inserted)
{
    collection_ref set;
    lar_value element;
    member_key key;
    int err = open_set(txn, true, obj, prop, &set);
    if (!err) err = collection_check_element(txn, &set, value, &element);
    if (!err) err = encode_member(&set, set.root, &element, &key); /* its size, before any write */
    if (err) return err;
    uint64_t id = set.root;
    if (!id) {
        err = collection_new_id(txn, &id);
        if (!err) err = collection_write_root(txn, &set, id);
        if (!err) err = encode_member(&set, id, &element, &key);
    }
    bool added = false;
    if (!err) err = add_member(txn, &set, id, &key, &added);
    if (!err && inserted) *inserted = added;
    return err;
}

int lar_set_insert(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *inserted)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, collection_noted(txn, mark, obj, prop, insert_member(txn, obj, prop, value, inserted)));
}

static int remove_member(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *removed)
{
    collection_ref set;
    member_key key;
    bool dropped = false;
    int err = open_set(txn, true, obj, prop, &set);
    if (!err) err = encode_query(&set, value, &key);
    if (!err) err = drop_member(txn, &set, &key, &dropped);
    if (!err && removed) *removed = dropped;
    return err;
}

int lar_set_remove(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *removed)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, collection_noted(txn, mark, obj, prop, remove_member(txn, obj, prop, value, removed)));
}

static int clear_set(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    collection_ref set;
    int err = open_set(txn, true, obj, prop, &set);
    if (!err && set.root) err = drop_all(txn, &set, set.root);
    if (!err && set.root) err = log_clear(txn, &set);
    return err ? err : collection_write_root(txn, &set, 0);
}

int lar_set_clear(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, collection_noted(txn, mark, obj, prop, clear_set(txn, obj, prop)));
}

typedef struct element_list {
    lar_txn *txn;
    const collection_ref *set;
    lar_value *out;
    size_t capacity, count;
} element_list;

/* The value of an element (and its typed number) of a set. */
static int decode_member(const collection_ref *set, const uint8_t *element, size_t size, const uint8_t *typed,
                         size_t typed_size, lar_value *value)
{
    if (set->prop->def.type == LAR_TYPE_MIXED) { /* a number as first inserted; the rest from the key */
        if (typed_size) {
            if (!key_mixed_is_number(element, size) || element_size(typed, typed_size) != typed_size) return corrupt();
            element_decode(typed, 0, value);
            if (value->type != LAR_TYPE_INT && value->type != LAR_TYPE_FLOAT && value->type != LAR_TYPE_DOUBLE &&
                value->type != LAR_TYPE_DECIMAL128)
                return corrupt();
        } else if (!key_decode_mixed(element, size, value)) {
            return corrupt();
        }
    } else if (!key_decode_element(element, size, set->prop->def.type, set->prop->target, value)) {
        return corrupt();
    }
    return LAR_OK;
}

static int list_member(const uint8_t *element, size_t size, const uint8_t *typed, size_t typed_size,
                       void *context)
{
    element_list *list = context;
    lar_value *value = &list->out[list->count];
    int err = decode_member(list->set, element, size, typed, typed_size, value);
    if (!err) err = collection_keep(list->txn, value);
    if (err) return err;
    return ++list->count == list->capacity ? 1 : LAR_OK;
}

int lar_set_list(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *after, lar_value *out, size_t capacity,
                 size_t *count)
{
    if (count) *count = 0;
    if (!out || !count || !capacity)
        return lar_fail(LAR_EINVAL, "lar_set_list: out and count must not be NULL, capacity not 0");
    collection_ref set;
    member_key from;
    int err = open_set(txn, false, obj, prop, &set);
    if (!err && after) err = encode_query(&set, after, &from);
    if (err) return err;
    element_list list = {txn, &set, out, capacity, 0};
    err = walk_members(txn, set.root, after ? &from : NULL, list_member, &list);
    *count = list.count;
    if (!err && !list.count) return LAR_ENOTFOUND; /* the end, as iterators report it */
    return err;
}

/* ---- two sets ---- */

/* Two sets hold the same elements when their properties have one type, target and nullability. */
static int open_pair(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop,
                     collection_ref *a, collection_ref *b)
{
    int err = open_set(txn, write, obj, prop, a);
    if (!err) err = open_set(txn, false, other, other_prop, b);
    if (err) return err;
    const lar_property_def *x = &a->prop->def, *y = &b->prop->def;
    if (x->type != y->type || (x->flags & LAR_PROP_OPTIONAL) != (y->flags & LAR_PROP_OPTIONAL) ||
        (x->type == LAR_TYPE_LINK && a->prop->target != b->prop->target))
        return lar_fail(LAR_EINVAL, "sets '%s.%s' and '%s.%s' hold different elements", a->cls->name, x->name,
                        b->cls->name, y->name);
    return LAR_OK;
}

/* A set's elements one by one, in order, block after block. */
typedef struct member_iter {
    kv_cursor *cursor;
    uint8_t prefix[ID_SIZE];
    const uint8_t *at, *end;   /* the rest of the current block */
    const uint8_t *element;    /* the current element, when valid */
    size_t size;
    const uint8_t *entry;      /* and its whole entry (with a typed number) */
    size_t entry_size;
    bool valid;
} member_iter;

static int iter_settle(member_iter *it, int rc, const kv_val *key, const kv_val *data)
{
    it->valid = false;
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (rc || !in_set(key, it->prefix)) return LAR_OK;
    block b;
    int err = block_open(key, data, &b);
    if (err) return err;
    it->at = it->entry = b.payload;
    it->end = b.payload + b.size;
    it->valid = element_at(&it->at, it->end, &it->element, &it->size);
    it->entry_size = (size_t)(it->at - it->entry);
    return LAR_OK;
}

static void iter_close(member_iter *it)
{
    if (it->cursor) kv_cursor_close(it->cursor);
    it->cursor = NULL;
}

static int iter_open(lar_txn *txn, uint64_t id, member_iter *it)
{
    memset(it, 0, sizeof *it);
    if (!id) return LAR_OK;
    keyed_prefix(it->prefix, id);
    int err = open_cursor(txn, &it->cursor);
    if (err) return err;
    kv_val key = {ID_SIZE, it->prefix}, data;
    int rc = kv_cursor_step(it->cursor, &key, &data, KV_SEEK);
    if (!rc && key.mv_size == ID_SIZE && !memcmp(key.mv_data, it->prefix, ID_SIZE))
        rc = kv_cursor_step(it->cursor, &key, &data, KV_NEXT);
    err = iter_settle(it, rc, &key, &data);
    if (err) iter_close(it); /* a failed open leaves nothing for its caller to close */
    return err;
}

static inline int iter_next(member_iter *it)
{
    if (it->at < it->end) {
        it->entry = it->at;
        it->valid = element_at(&it->at, it->end, &it->element, &it->size);
        it->entry_size = (size_t)(it->at - it->entry);
        return it->valid ? LAR_OK : corrupt();
    }
    kv_val key, data;
    return iter_settle(it, kv_cursor_step(it->cursor, &key, &data, KV_NEXT), &key, &data);
}

/* The changing set's blocks, read before anything is written. */
typedef struct block_array {
    block *items;
    size_t count, capacity;
} block_array;

static int gather_block(const block *b, void *context)
{
    block_array *all = context;
    if (all->count == all->capacity) {
        size_t capacity = all->capacity ? all->capacity * 2 : 64;
        block *items = realloc(all->items, capacity * sizeof *items);
        if (!items) return lar_fail(LAR_ENOMEM, "out of memory walking a set");
        all->items = items;
        all->capacity = capacity;
    }
    all->items[all->count++] = *b;
    return LAR_OK;
}

enum { UNITE, INTERSECT, SUBTRACT };

/* What a change of set a by set b writes, planned while reading both: runs of a's
 * consecutive blocks that change, each to be replaced by its new elements. */
typedef struct plan {
    int op;
    byte_buffer runs;    /* per run, u64 [keys from, to][payload from, to][count] */
    byte_buffer keys;    /* the runs' old keys, [u16 size][key] records */
    byte_buffer payload; /* and their new elements */
    size_t count;        /* how many */
    size_t run_keys, run_from, run_count; /* where the open run starts */
    bool open;
    bool with_links;
    byte_buffer links;   /* for sets of links: elements added or dropped, (u32 size, bytes) */
    bool logged;
    byte_buffer changed; /* for the change log: the entries added or dropped, (u32 size, bytes) */
    int64_t delta;       /* the change of a's count */
} plan;

static void open_run(plan *p, size_t from, size_t count)
{
    if (p->open) return;
    p->open = true;
    p->run_keys = p->keys.size;
    p->run_from = from;
    p->run_count = count;
}

static int close_run(plan *p)
{
    if (!p->open) return LAR_OK;
    uint64_t run[5] = {p->run_keys, p->keys.size, p->run_from, p->payload.size, p->count - p->run_count};
    p->open = false;
    return buffer_append(&p->runs, run, sizeof run);
}

/* Appends an element's whole entry (read from a block: it fits ENTRY_MAX). */
static inline int emit(plan *p, const uint8_t *entry, size_t size)
{
    int err = p->payload.capacity - p->payload.size < ENTRY_MAX ? buffer_reserve(&p->payload, ENTRY_MAX) : LAR_OK;
    if (!err) {
        memcpy(p->payload.data + p->payload.size, entry, size);
        p->payload.size += size;
    }
    p->count++;
    return err;
}

/* An element of b that a gains (union) or one of a's that it loses, and its entry. */
static int note_change(plan *p, const uint8_t *element, size_t size, const uint8_t *entry, size_t entry_size, int delta)
{
    p->delta += delta;
    int err = p->with_links ? collect_member(element, size, NULL, 0, &p->links) : LAR_OK;
    return !err && p->logged ? collect_member(entry, entry_size, NULL, 0, &p->changed) : err;
}

/* Plans block i of a (blocks): its new elements go to the open run's payload. For a
 * union, b's elements below the next block's first go into this one. */
static int plan_block(plan *p, const block_array *blocks, size_t i, member_iter *b)
{
    const block *blk = &blocks->items[i];
    const uint8_t *bound = NULL;
    size_t bound_size = 0;
    if (i + 1 < blocks->count) {
        bound = blocks->items[i + 1].key + ID_SIZE;
        bound_size = blocks->items[i + 1].key_size - ID_SIZE;
    }
    size_t mark = p->payload.size, count_mark = p->count;
    bool changed = false;
    int err = buffer_reserve(&p->payload, blk->size);
    const uint8_t *at = blk->payload, *end = blk->payload + blk->size, *x = NULL, *x_entry = at;
    size_t xs = 0;
    bool has_x = element_at(&at, end, &x, &xs);
    while (!err && has_x) {
        int order = 1; /* of b's current element against x */
        while (!err && b->valid && (order = compare_elements(b->element, b->size, x, xs)) < 0) {
            if (p->op == UNITE) { /* b's, below x */
                changed = true;
                err = emit(p, b->entry, b->entry_size);
                if (!err) err = note_change(p, b->element, b->size, b->entry, b->entry_size, 1);
            }
            if (!err) err = iter_next(b);
        }
        if (err) break;
        bool both = b->valid && !order;
        if (p->op == UNITE || both == (p->op == INTERSECT)) { /* a keeps its own entry */
            err = emit(p, x_entry, (size_t)(at - x_entry));
        } else {
            changed = true;
            err = note_change(p, x, xs, x_entry, (size_t)(at - x_entry), -1);
        }
        if (!err && both) err = iter_next(b);
        has_x = at < end;
        x_entry = at;
        if (!err && has_x && !element_at(&at, end, &x, &xs)) err = corrupt();
    }
    /* a union takes b's elements up to the next block */
    while (!err && p->op == UNITE && b->valid && (!bound || compare_elements(b->element, b->size, bound, bound_size) < 0)) {
        changed = true;
        err = emit(p, b->entry, b->entry_size);
        if (!err) err = note_change(p, b->element, b->size, b->entry, b->entry_size, 1);
        if (!err) err = iter_next(b);
    }
    if (err) return err;
    if (changed) {
        open_run(p, mark, count_mark);
        return note_key_buffer(&p->keys, blk);
    }
    if (p->open && mark - p->run_from < BLOCK_MIN) { /* a small run takes this block in, rather than end small */
        err = note_key_buffer(&p->keys, blk);
        return err ? err : close_run(p);
    }
    p->payload.size = mark;
    p->count = count_mark;
    return close_run(p);
}

static int plan_change(lar_txn *txn, uint64_t a, uint64_t b, plan *p)
{
    block_array blocks = {0};
    member_iter it;
    int err = buffer_reserve(&p->payload, 16 * BLOCK_MAX); /* never NULL, even when nothing is kept */
    if (!err) err = buffer_reserve(&p->keys, 16 * (2 + SET_KEY_MAX));
    if (!err) err = walk_blocks(txn, a, gather_block, &blocks);
    memset(&it, 0, sizeof it);
    if (!err) err = iter_open(txn, b, &it);
    if (err) {
        iter_close(&it);
        free(blocks.items);
        return err;
    }
    for (size_t i = 0; !err && i < blocks.count; i++) {
        if (!it.valid && p->op != INTERSECT && !p->open) break; /* nothing more changes */
        err = plan_block(p, &blocks, i, &it);
    }
    if (!err && !blocks.count && p->op == UNITE) { /* a is empty: it takes all of b */
        for (; !err && it.valid; err = iter_next(&it)) {
            open_run(p, p->payload.size, p->count);
            err = emit(p, it.entry, it.entry_size);
            if (!err) err = note_change(p, it.element, it.size, it.entry, it.entry_size, 1);
        }
    }
    if (!err) err = close_run(p);
    iter_close(&it);
    free(blocks.items);
    return err;
}

static int apply_plan(lar_txn *txn, collection_ref *a, const plan *p)
{
    if (!p->runs.size) return LAR_OK;
    int err = LAR_OK;
    if (!a->root) {
        uint64_t id;
        err = collection_new_id(txn, &id);
        if (!err) err = collection_write_root(txn, a, id);
        if (!err) a->root = id;
    }
    kv_cursor *cursor = NULL;
    if (!err) err = open_cursor(txn, &cursor);
    for (size_t at = 0; !err && at < p->runs.size; at += 5 * sizeof(uint64_t)) {
        uint64_t run[5];
        memcpy(run, p->runs.data + at, sizeof run);
        err = rewrite(txn, cursor, a->root, p->keys.data + run[0], run[1] - run[0], p->payload.data + run[2],
                      run[3] - run[2], run[4], BLOCK_FILL);
    }
    if (cursor) kv_cursor_close(cursor);
    for (size_t at = 0; !err && at < p->links.size;) {
        uint32_t size;
        memcpy(&size, p->links.data + at, 4);
        lar_obj target;
        if (member_link(a, p->links.data + at + 4, size, &target))
            err = p->op == UNITE ? backlink_add(txn, target, a->obj, a->prop_index)
                                 : backlink_remove(txn, target, a->obj, a->prop_index);
        at += 4 + (size_t)size;
    }
    uint64_t count = 0;
    if (!err) err = keyed_count(txn, a->root, &count);
    int64_t updated = (int64_t)count + p->delta;
    if (!err && updated < 0) err = corrupt();
    if (!err) err = keyed_count_store(txn, a->root, (uint64_t)updated);
    if (!err && !updated) {
        err = collection_write_root(txn, a, 0);
        if (!err) a->root = 0;
    }
    for (size_t at = 0; !err && at < p->changed.size;) { /* into the change log */
        uint32_t size;
        memcpy(&size, p->changed.data + at, 4);
        err = log_member(txn, a, p->op == UNITE ? SET_OP_INSERT : SET_OP_REMOVE, p->changed.data + at + 4, size);
        at += 4 + (size_t)size;
    }
    return err;
}

/* Changes obj's set by other's: union, intersection or difference. */
static int change_by(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int op)
{
    collection_ref a, b;
    int err = open_pair(txn, true, obj, prop, other, other_prop, &a, &b);
    if (err) return err;
    if (a.root == b.root) { /* one set, or two empty ones: only a set minus itself changes */
        if (op == SUBTRACT && a.root) {
            err = drop_all(txn, &a, a.root);
            if (!err) err = collection_write_root(txn, &a, 0);
            if (!err) err = log_clear(txn, &a);
        }
        return err;
    }
    plan p = {.op = op, .with_links = holds_links(&a), .logged = changes_logged(txn)};
    err = plan_change(txn, a.root, b.root, &p);
    if (!err) err = apply_plan(txn, &a, &p);
    buffer_free(&p.runs);
    buffer_free(&p.keys);
    buffer_free(&p.payload);
    buffer_free(&p.links);
    buffer_free(&p.changed);
    return err;
}

int lar_set_union(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, collection_noted(txn, mark, obj, prop, change_by(txn, obj, prop, other, other_prop, UNITE)));
}

int lar_set_intersect(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, collection_noted(txn, mark, obj, prop, change_by(txn, obj, prop, other, other_prop, INTERSECT)));
}

int lar_set_subtract(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, collection_noted(txn, mark, obj, prop, change_by(txn, obj, prop, other, other_prop, SUBTRACT)));
}

/* Whether an element is in set a only (IN_FIRST) or in both (IN_BOTH): a merge of the
 * two that stops at the first. */
enum { IN_FIRST = 1, IN_BOTH = 3 };

static int find_where(lar_txn *txn, uint64_t first, uint64_t second, int where, bool *found)
{
    member_iter a, b;
    *found = false;
    int err = iter_open(txn, first, &a);
    if (err) return err;
    err = iter_open(txn, second, &b);
    while (!err && a.valid) {
        int order = b.valid ? compare_elements(a.element, a.size, b.element, b.size) : -1;
        if ((order < 0 && where == IN_FIRST) || (!order && where == IN_BOTH)) {
            *found = true;
            break;
        }
        if (!b.valid && where == IN_BOTH) break;
        if (order <= 0) err = iter_next(&a);
        if (!err && order >= 0) err = iter_next(&b);
    }
    iter_close(&a);
    iter_close(&b);
    return err;
}

static int test_pair(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int where,
                     bool *found)
{
    collection_ref a, b;
    int err = open_pair(txn, false, obj, prop, other, other_prop, &a, &b);
    if (err) return err;
    if (a.root == b.root) { /* one set: all in both */
        *found = where == IN_BOTH && a.root;
        return LAR_OK;
    }
    return find_where(txn, a.root, b.root, where, found);
}

int lar_set_is_subset(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_is_subset: out is NULL");
    bool outside;
    int err = test_pair(txn, obj, prop, other, other_prop, IN_FIRST, &outside);
    if (!err) *out = !outside;
    return err;
}

int lar_set_intersects(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_intersects: out is NULL");
    bool common;
    int err = test_pair(txn, obj, prop, other, other_prop, IN_BOTH, &common);
    if (!err) *out = common;
    return err;
}

/* ---- element changes in the change log ---- */

static bool logged_element_at(const logged_element *e, const uint8_t **element, size_t *size, const uint8_t **typed,
                              size_t *typed_size)
{
    const uint8_t *at = e->bytes, *end = e->bytes + e->size;
    return e->size && entry_at(&at, end, element, size, typed, typed_size) && at == end;
}

int set_entry_compare(const logged_element *a, const logged_element *b, bool *bad)
{
    const uint8_t *x, *y, *typed;
    size_t xs, ys, typed_size;
    if (!logged_element_at(a, &x, &xs, &typed, &typed_size) || !logged_element_at(b, &y, &ys, &typed, &typed_size)) {
        *bad = true;
        return 0;
    }
    return compare_elements(x, xs, y, ys);
}

static int missing(void)
{
    return lar_fail(LAR_ECORRUPT, "the change log names a set element the set does not hold");
}

/* The element of a logged entry (missing() when damaged). */
static int logged_member(const logged_element *e, const uint8_t **element, size_t *size)
{
    const uint8_t *typed;
    size_t typed_size;
    return logged_element_at(e, element, size, &typed, &typed_size) ? LAR_OK : missing();
}

/* Places entries [from, to) (ascending), all in block b, whose first element is at base. */
static int place_range(const block *b, const logged_element *entries, size_t from, size_t to, size_t base, size_t *out)
{
    const uint8_t *at = b->payload, *end = b->payload + b->size;
    size_t index = 0;
    for (size_t i = from; i < to; i++) {
        const uint8_t *want = NULL;
        size_t want_size = 0;
        int err = logged_member(&entries[i], &want, &want_size), order = -1;
        while (!err && at < end) {
            const uint8_t *x, *past = at;
            size_t xs;
            if (!element_at(&past, end, &x, &xs)) return corrupt();
            if ((order = compare_elements(x, xs, want, want_size)) >= 0) break;
            at = past;
            index++;
        }
        if (err || order) return err ? err : missing();
        out[i] = base + index;
    }
    return LAR_OK;
}

/* Whether a logged entry's element is below a block's first. */
static bool below_block(const logged_element *e, const block *b, int *err)
{
    const uint8_t *element = NULL;
    size_t size = 0;
    if ((*err = logged_member(e, &element, &size))) return false;
    return compare_elements(element, size, b->key + ID_SIZE, b->key_size - ID_SIZE) < 0;
}

/* One end of a walk over a set's blocks: its cursor and current block. */
typedef struct block_end {
    kv_cursor *cursor;
    uint8_t prefix[ID_SIZE];
    block at;
    bool valid;
} block_end;

static int end_settle(block_end *e, int rc, const kv_val *key, const kv_val *data)
{
    e->valid = false;
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (rc || !in_set(key, e->prefix)) return LAR_OK;
    e->valid = true;
    return block_open(key, data, &e->at);
}

static int end_step(block_end *e, int step)
{
    kv_val key, data;
    return end_settle(e, kv_cursor_step(e->cursor, &key, &data, step), &key, &data);
}

/* Opens the end of set id at its first block (last false) or its last. */
static int end_open(lar_txn *txn, uint64_t id, bool last, block_end *e)
{
    keyed_prefix(e->prefix, id);
    e->valid = false;
    int err = open_cursor(txn, &e->cursor);
    if (err) return err;
    uint8_t seek[ID_SIZE];
    keyed_prefix(seek, last ? id + 1 : id);
    kv_val key = {ID_SIZE, seek}, data;
    int rc = kv_cursor_step(e->cursor, &key, &data, KV_SEEK);
    if (last) rc = kv_cursor_step(e->cursor, &key, &data, rc == KV_NOTFOUND ? KV_LAST : KV_PREV);
    else if (!rc && key.mv_size == ID_SIZE && !memcmp(key.mv_data, e->prefix, ID_SIZE)) /* the count */
        rc = kv_cursor_step(e->cursor, &key, &data, KV_NEXT);
    return end_settle(e, rc, &key, &data);
}

/* Walks the set's blocks from both ends at once, counting the elements of the blocks
 * passed, so that an entry near either end is placed after few blocks: each block
 * from the front takes the entries below the next block's first element, each from
 * the back those at or above its own first. The two meet when their counts sum to the
 * set's; an entry left then is not in the set. */
typedef struct position_walk {
    const logged_element *entries;
    size_t lo, hi;            /* the entries not placed yet */
    size_t *out;
    uint64_t before, after, total; /* elements in the blocks passed from the front, the back; in all */
} position_walk;

static int front_step(position_walk *w, block_end *front)
{
    block here = front->at;
    int err = end_step(front, KV_NEXT);
    size_t to = w->lo;
    while (!err && to < w->hi && (!front->valid || below_block(&w->entries[to], &front->at, &err))) to++;
    if (!err) err = place_range(&here, w->entries, w->lo, to, (size_t)w->before, w->out);
    w->lo = to;
    w->before += here.count;
    return err;
}

static int back_step(position_walk *w, block_end *back)
{
    size_t from = w->hi;
    int err = LAR_OK;
    while (!err && from > w->lo && !below_block(&w->entries[from - 1], &back->at, &err)) from--;
    w->after += back->at.count;
    if (!err) err = place_range(&back->at, w->entries, from, w->hi, (size_t)(w->total - w->after), w->out);
    w->hi = from;
    return err ? err : end_step(back, KV_PREV);
}

int set_positions(lar_txn *txn, lar_obj obj, uint32_t prop, const logged_element *entries, size_t count, size_t *out)
{
    collection_ref set;
    position_walk w = {entries, 0, count, out, 0, 0, 0};
    int err = open_set(txn, false, obj, prop, &set);
    if (err || !count) return err;
    if (!set.root) return missing();
    err = keyed_count(txn, set.root, &w.total);
    block_end front = {0}, back = {0};
    if (!err) err = end_open(txn, set.root, false, &front);
    if (!err) err = end_open(txn, set.root, true, &back);
    while (!err && w.lo < w.hi && front.valid && back.valid && w.before + w.after < w.total) {
        err = front_step(&w, &front);
        if (!err && w.lo < w.hi && w.before + w.after < w.total) err = back_step(&w, &back);
    }
    if (front.cursor) kv_cursor_close(front.cursor);
    if (back.cursor) kv_cursor_close(back.cursor);
    return !err && w.lo < w.hi ? missing() : err;
}

int set_entry_value(lar_txn *txn, lar_obj obj, uint32_t prop, const logged_element *entry, lar_value *out)
{
    collection_ref set;
    const uint8_t *element, *typed;
    size_t size, typed_size;
    int err = open_set(txn, false, obj, prop, &set);
    if (err) return err;
    if (!logged_element_at(entry, &element, &size, &typed, &typed_size))
        return lar_fail(LAR_ECORRUPT, "a set element in the change log is damaged");
    return decode_member(&set, element, size, typed, typed_size, out);
}
