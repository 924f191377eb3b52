/* The fast path of a one-key sort: when every value is null or of one kind that maps to
 * fixed-width keys in Realm's order (ints, bools, floats, doubles, timestamps; strings and
 * binaries by their first 12 bytes), a stable LSD radix sort on those keys, then each run
 * of equal keys that a key does not decide (strings longer than their key) handed back to
 * be sorted by value_sort_order(). No comparison per pair: 200,000 ints sort in milliseconds.
 *
 * Each value gets a class (null 0, NaN 1, any other 2, a null link on the way 3: Realm puts
 * nulls first, NaN before every other number and null links last), a 64-bit key and a
 * 32-bit one; descending inverts all three, which keeps equal values in their order (the
 * sort is stable either way). The three parts are sorted by in turn (least significant
 * first), each only if the values differ in it (only such a part gets an array of keys)
 * and only on the bits where they differ, as (key, position) pairs: no pass gathers keys
 * through positions. At 200,000 objects, fresh memory (a page fault per 4 KiB) and cache
 * misses cost more than the instructions. */
#include "query/order.h"

#include <stdlib.h>
#include <string.h>

/* A value's keys (see above). */
typedef struct sort_key {
    uint64_t cls, high, low;     /* class 0...3; 64 bits; 32 bits */
} sort_key;

static uint64_t double_key(double d)
{
    if (d == 0) d = 0; /* -0.0 == 0.0 */
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits >> 63 ? ~bits : bits | (uint64_t)1 << 63;
}

/* The first 12 bytes, big-endian, zero-padded, read in fixed-size loads (a copy of the
 * value's own size was a call to memcpy per value, a tenth of a string sort). */
static void prefix_key(const void *data, size_t size, uint64_t *high, uint64_t *low)
{
    const uint8_t *p = data;
    uint64_t h = 0;
    uint32_t l = 0;
    if (size >= 8) {
        h = load_be64(p);
        if (size >= 12) l = load_be32(p + 8);
        else
            for (size_t i = 8; i < size; i++) l |= (uint32_t)p[i] << (8 * (11 - i));
    } else if (size >= 4) { /* two loads that overlap: bytes 0-3 and size-4...size-1 */
        h = (uint64_t)load_be32(p) << 32 | (uint64_t)load_be32(p + size - 4) << (8 * (8 - size));
    } else {
        for (size_t i = 0; i < size; i++) h |= (uint64_t)p[i] << (8 * (7 - i));
    }
    *high = h;
    *low = l;
}

/* The keys of v; false when it is of a kind without keys. *exact turns false for a kind
 * whose equal keys may hold different values. */
static bool key_of(const lar_value *v, sort_key *k, bool *exact)
{
    *k = (sort_key){2, 0, 0};
    if (v->type == VALUE_NULL_LINK) {
        k->cls = 3;
        return true;
    }
    switch (v->type) {
    case LAR_TYPE_NULL: k->cls = 0; return true;
    case LAR_TYPE_INT: k->high = (uint64_t)v->as.integer ^ (uint64_t)1 << 63; return true;
    case LAR_TYPE_BOOL: k->high = v->as.boolean != 0; return true;
    case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE: {
        double d = v->type == LAR_TYPE_FLOAT ? (double)v->as.float32 : v->as.float64;
        if (d != d) { /* NaNs among themselves by their bits, as realm-core */
            k->cls = 1;
            memcpy(&k->high, &d, sizeof d);
            return true;
        }
        k->high = double_key(d);
        return true;
    }
    case LAR_TYPE_TIMESTAMP:
        k->high = (uint64_t)v->as.timestamp.seconds ^ (uint64_t)1 << 63;
        k->low = (uint32_t)v->as.timestamp.nanoseconds ^ (uint32_t)1 << 31;
        return true;
    case LAR_TYPE_STRING:
        prefix_key(v->as.string.data, v->as.string.size, &k->high, &k->low);
        *exact = false;
        return true;
    case LAR_TYPE_BINARY:
        prefix_key(v->as.binary.data, v->as.binary.size, &k->high, &k->low);
        *exact = false;
        return true;
    default:
        return false;
    }
}

/* The keys of a value known to have them, inverted when descending. */
static sort_key key_at(const lar_value *v, bool descending)
{
    sort_key k;
    bool exact;
    key_of(v, &k, &exact);
    if (descending) k = (sort_key){3 - k.cls, ~k.high, ~k.low & 0xFFFFFFFFu};
    return k;
}

enum { PART_LOW, PART_HIGH, PART_CLASS, PARTS };

static uint64_t part_of(const sort_key *k, int part)
{
    return part == PART_LOW ? k->low : part == PART_HIGH ? k->high : k->cls;
}

/* Whether values are null or of one kind with keys (int and double together would need
 * comparing by value across kinds: not here). */
static bool one_kind(const lar_value *values, size_t n)
{
    lar_type kind = LAR_TYPE_NULL;
    for (size_t i = 0; i < n; i++) {
        lar_type t = values[i].type == LAR_TYPE_FLOAT ? LAR_TYPE_DOUBLE : values[i].type;
        if (t == LAR_TYPE_NULL || t == VALUE_NULL_LINK) continue;
        if (kind == LAR_TYPE_NULL) kind = t;
        else if (t != kind) return false;
    }
    return true;
}

/* The bits in which keys[0..n) differ: a byte where none differ takes no pass. */
static uint64_t differing_bits(const uint64_t *keys, size_t n)
{
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) any |= keys[i], all &= keys[i];
    return any ^ all;
}

/* One stable counting pass on byte `shift` of keys[position]. */
static void pass(const uint64_t *keys, int shift, const size_t *from, size_t *to, size_t n)
{
    size_t counts[256] = {0};
    for (size_t i = 0; i < n; i++) counts[keys[from[i]] >> shift & 0xFF]++;
    size_t at = 0;
    for (int b = 0; b < 256; b++) {
        size_t c = counts[b];
        counts[b] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++) to[counts[keys[from[i]] >> shift & 0xFF]++] = from[i];
}

size_t *radix_sort_u64(const uint64_t *keys, size_t n, size_t *positions, size_t *scratch)
{
    for (size_t i = 0; i < n; i++) positions[i] = i;
    uint64_t differ = differing_bits(keys, n);
    size_t *a = positions, *b = scratch;
    for (int shift = 0; shift < 64; shift += 8) {
        if (!(differ >> shift & 0xFF)) continue;
        pass(keys, shift, a, b, n);
        size_t *t = a;
        a = b;
        b = t;
    }
    return a;
}

/* A key with its position, 12 bytes: the passes move both, reading in order rather than
 * gathering each key through its position. */
typedef struct __attribute__((packed)) key_position {
    uint64_t key;
    uint32_t position;
} key_position;

/* A pass's digit: the differing bits of up to two neighbouring key bytes side by side (the
 * less significant byte's low), at most DIGIT_BITS of them. Bits between them are the same
 * in every key and order nothing: lowercase letters differ in 5 bits a byte, so two letters
 * make one pass of 1,024 buckets; ints below 1,024 one pass. */
#define DIGIT_BITS 11

typedef struct digit {
    unsigned shift[2], width[2];  /* width[1] 0: one byte's bits */
} digit;

/* The digits of the bits in differ, least significant first; returns how many (at most 8). */
static size_t digits_of(uint64_t differ, digit *out)
{
    size_t count = 0;
    for (unsigned byte = 0; byte < 8; byte++) {
        unsigned bits = (unsigned)(differ >> (8 * byte)) & 0xFF;
        if (!bits) continue;
        unsigned low = (unsigned)__builtin_ctz(bits), high = 31u - (unsigned)__builtin_clz(bits);
        unsigned shift = 8 * byte + low, width = high - low + 1;
        digit *last = count ? &out[count - 1] : NULL;
        if (last && !last->width[1] && last->width[0] + width <= DIGIT_BITS) {
            last->shift[1] = shift;
            last->width[1] = width;
        } else {
            out[count++] = (digit){{shift, 0}, {width, 0}};
        }
    }
    return count;
}

static inline uint32_t digit_at(const digit *d, uint64_t key)
{
    uint32_t first = (uint32_t)(key >> d->shift[0]) & ((1u << d->width[0]) - 1);
    uint32_t second = (uint32_t)(key >> d->shift[1]) & ((1u << d->width[1]) - 1);
    return first | second << d->width[0];
}

static void keyed_pass(key_position *from, key_position *to, const digit *d, size_t n)
{
    uint32_t counts[1u << DIGIT_BITS] = {0};
    uint32_t buckets = 1u << (d->width[0] + d->width[1]);
    for (size_t i = 0; i < n; i++) counts[digit_at(d, from[i].key)]++;
    uint32_t at = 0;
    for (uint32_t b = 0; b < buckets; b++) {
        uint32_t c = counts[b];
        counts[b] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++) to[counts[digit_at(d, from[i].key)]++] = from[i];
}

/* Sorts positions[0..n) (n <= UINT32_MAX) stably by keys[position]: a pass for each digit
 * of differ (the bits in which the keys differ). room: 2n pairs. Returns the pairs in
 * their sorted order (in room). */
static const key_position *sort_part(const uint64_t *keys, uint64_t differ, size_t *positions, void *room, size_t n)
{
    digit digits[8];
    size_t count = digits_of(differ, digits);
    key_position *a = room, *b = a + n;
    for (size_t i = 0; i < n; i++) a[i] = (key_position){keys[positions[i]], (uint32_t)positions[i]};
    for (size_t d = 0; d < count; d++) {
        keyed_pass(a, b, &digits[d], n);
        key_position *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) positions[i] = a[i].position;
    return a;
}

/* The parts in which the values' keys differ, each as an array of every value's part
 * (NULL for a part in which they are all equal: it cannot order them). */
typedef struct parts {
    uint64_t *keys[PARTS];
    uint64_t differ[PARTS];
    bool exact;                  /* equal keys mean equal values */
} parts;

/* Whether the values at sorted places i and j have the same keys: read in sorted order when
 * one part was sorted (its pairs), else through the positions from each part's array. */
static bool same_keys(const parts *k, const key_position *sorted, const size_t *positions, size_t i, size_t j)
{
    if (sorted) return sorted[i].key == sorted[j].key;
    for (int part = 0; part < PARTS; part++)
        if (k->keys[part] && k->keys[part][positions[i]] != k->keys[part][positions[j]]) return false;
    return true;
}

/* Hands each run of equal keys (in sorted positions) that the keys do not decide to refine.
 * sorted: the pairs of the one part sorted, or NULL. */
static void refine_runs(const lar_value *values, bool descending, const parts *k, const key_position *sorted,
                        size_t *positions, size_t n, radix_refine refine, void *context)
{
    for (size_t start = 0; start < n;) {
        size_t end = start + 1;
        while (end < n && same_keys(k, sorted, positions, start, end)) end++;
        if (end - start > 1 && key_at(&values[positions[start]], descending).cls == (descending ? 1 : 2))
            refine(context, positions + start, end - start);
        start = end;
    }
}

/* Finds the parts in which the keys differ and fills their arrays, reading the values in
 * order: once when only the high part differs (the usual case: its array is filled on the
 * way), twice when another does. Returns LAR_ENOTFOUND when a value has no keys. */
static int parts_open(const lar_value *values, size_t n, bool descending, parts *k)
{
    *k = (parts){.exact = true};
    uint64_t *high = big_alloc(n * sizeof *high + 1);
    if (!high) return lar_fail(LAR_ENOMEM, "out of memory");
    k->keys[PART_HIGH] = high;
    uint64_t any[PARTS] = {0}, all[PARTS] = {~(uint64_t)0, ~(uint64_t)0, ~(uint64_t)0};
    for (size_t i = 0; i < n; i++) {
        sort_key key;
        if (!key_of(&values[i], &key, &k->exact)) return LAR_ENOTFOUND;
        for (int part = 0; part < PARTS; part++) any[part] |= part_of(&key, part), all[part] &= part_of(&key, part);
        high[i] = descending ? ~key.high : key.high;
    }
    bool others = false;
    for (int part = 0; part < PARTS; part++) {
        k->differ[part] = any[part] ^ all[part]; /* inverting keeps which bits differ */
        if (part == PART_HIGH || !k->differ[part]) continue;
        others = true;
        k->keys[part] = big_alloc(n * sizeof *k->keys[part]);
        if (!k->keys[part]) return lar_fail(LAR_ENOMEM, "out of memory");
    }
    for (size_t i = 0; others && i < n; i++) {
        sort_key key = key_at(&values[i], descending);
        for (int part = 0; part < PARTS; part++)
            if (part != PART_HIGH && k->keys[part]) k->keys[part][i] = part_of(&key, part);
    }
    if (!k->differ[PART_HIGH]) {
        big_free(high);
        k->keys[PART_HIGH] = NULL;
    }
    return LAR_OK;
}

static void parts_close(parts *k)
{
    for (int part = 0; part < PARTS; part++) big_free(k->keys[part]);
}

_Static_assert(sizeof(lar_value) >= 2 * sizeof(key_position), "a value's room holds two pairs");

int radix_sort(const lar_value *values, size_t n, bool descending, lar_value *spare, size_t *positions,
               size_t **sorted, radix_refine refine, void *context)
{
    *sorted = NULL;
    if (n > UINT32_MAX || !one_kind(values, n)) return LAR_OK;
    parts k;
    int rc = parts_open(values, n, descending, &k);
    bool in_spare = rc == LAR_OK && spare == values && k.exact; /* no run to refine reads them */
    key_position *moving = in_spare ? (key_position *)(void *)spare : rc == LAR_OK ? big_alloc(2 * n * sizeof *moving + 1) : NULL;
    if (rc == LAR_OK && !moving) rc = lar_fail(LAR_ENOMEM, "out of memory");
    if (rc == LAR_OK) {
        for (size_t i = 0; i < n; i++) positions[i] = i;
        const key_position *sorted_part = NULL;
        int parts_sorted = 0;
        for (int part = 0; part < PARTS; part++)
            if (k.keys[part]) {
                sorted_part = sort_part(k.keys[part], k.differ[part], positions, moving, n);
                parts_sorted++;
            }
        if (!k.exact)
            refine_runs(values, descending, &k, parts_sorted == 1 ? sorted_part : NULL, positions, n, refine, context);
        if (!in_spare) big_free(moving);
        *sorted = positions;
    }
    parts_close(&k);
    return rc == LAR_ENOTFOUND ? LAR_OK : rc;
}
