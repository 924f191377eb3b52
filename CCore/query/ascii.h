/* ASCII text 8 bytes at a time (one uint64_t), for the string tests of a scan: lowering
 * letters, and CONTAINS[c] / CONTAINS[d] of an ASCII needle searched in the haystack's
 * own bytes, without folding a copy of it (the short case inline here, the rest in
 * ascii_search.c). Private to the query layer.
 *
 * The search tests 8 starting places at once: the 8 bytes at a block and the 8 bytes
 * size - 1 further on, folded, are compared with the needle's first and last byte, and
 * only a place where both agree has its middle bytes compared. Nothing is read outside
 * the haystack's hn bytes: one of up to 16 bytes is loaded into two words (zero past
 * its end) and searched in registers, a longer one in place. */
#ifndef LARDER_ASCII_H
#define LARDER_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ASCII_ONES 0x0101010101010101ull
#define ASCII_TOP 0x8080808080808080ull /* a byte's top bit: set in no ASCII byte */
#define ASCII_LOW7 0x7F7F7F7F7F7F7F7Full

/* The 8 bytes of x with their ASCII letters lowered, at once: a byte's top bit marks it
 * an upper-case letter when it is at least 'A' and not above 'Z' (each test an add that
 * carries into the top bit of its byte alone), and that bit moved down is 0x20. Bytes
 * of 0x80 and above are left alone. */
static inline uint64_t ascii_lower8(uint64_t x)
{
    uint64_t heptets = x & ASCII_LOW7;
    uint64_t at_least_a = heptets + 0x3F3F3F3F3F3F3F3Full; /* + 0x80 - 'A' */
    uint64_t above_z = heptets + 0x2525252525252525ull;    /* + 0x80 - ('Z' + 1) */
    uint64_t upper = at_least_a & ~above_z & ~x & ASCII_TOP;
    return x | upper >> 2;
}

/* What ascii_contains() can tell. */
typedef enum ascii_verdict {
    ASCII_ABSENT,    /* the haystack is ASCII and holds no fold of the needle */
    ASCII_FOUND,     /* a run of ASCII bytes of the haystack folds to the needle */
    ASCII_UNDECIDED  /* the haystack holds other bytes (which may fold to ASCII) and no
                      * ASCII run matched, or the needle is long for the haystack: only
                      * the general fold tells */
} ascii_verdict;

/* A needle of CONTAINS[c] or CONTAINS[d], folded (lower case when lower), prepared once. */
typedef struct ascii_needle {
    const uint8_t *bytes;
    size_t size;
    uint64_t first, last;     /* its first and last byte in every byte */
    bool lower;               /* [c]: the haystack's letters are lowered */
    bool ascii;               /* every byte is ASCII: ascii_contains() takes only such needles */
} ascii_needle;

ascii_needle ascii_needle_of(const char *bytes, size_t size, bool lower);
/* ascii_contains() of a haystack of more than 16 bytes. */
ascii_verdict ascii_contains_long(const ascii_needle *n, const uint8_t *h, size_t hn);
/* Whether the needle starts at a place of hits (a top bit per byte of the block at
 * h + at) where its first and last bytes matched: its middle bytes compared. */
bool ascii_confirm(const ascii_needle *n, const uint8_t *h, size_t at, uint64_t hits);

static inline uint64_t ascii_load8(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline uint64_t ascii_fold8(uint64_t x, bool lower)
{
    return lower ? ascii_lower8(x) : x;
}

/* The places of a block (a top bit per byte) whose first byte is the needle's first
 * and whose byte size - 1 on (in b) is its last; a and b folded. A zero byte's top bit
 * is found exactly: no borrow reaches another byte. */
static inline uint64_t ascii_candidates(uint64_t a, uint64_t b, const ascii_needle *n)
{
    uint64_t x = a ^ n->first, y = b ^ n->last;
    return ~(((x & ASCII_LOW7) + ASCII_LOW7) | x | ((y & ASCII_LOW7) + ASCII_LOW7) | y) & ASCII_TOP;
}

/* The places 0...last of a block (last < 8). */
static inline uint64_t ascii_places_up_to(size_t last)
{
    return ASCII_TOP & (~0ull >> (8 * (7 - last)));
}

/* The hn <= 16 bytes at h as two words, zero past hn: overlapping loads, no loop. */
static inline void ascii_load_short(const uint8_t *h, size_t hn, uint64_t *w0, uint64_t *w1)
{
    *w1 = 0;
    if (hn >= 8) {
        *w0 = ascii_load8(h);
        if (hn > 8) *w1 = ascii_load8(h + hn - 8) >> (8 * (16 - hn)); /* drops the bytes w0 holds */
        return;
    }
    uint32_t lo = 0, hi = 0;
    if (hn >= 4) {
        memcpy(&lo, h, 4);
        memcpy(&hi, h + hn - 4, 4);
        *w0 = lo | (uint64_t)hi << (8 * (hn - 4)); /* the overlap is the same bytes */
        return;
    }
    *w0 = 0;
    for (size_t i = 0; i < hn; i++) *w0 |= (uint64_t)h[i] << (8 * i);
}

/* The 8 bytes at byte shift (< 16) of the 16 bytes w0, w1 (zero past them). */
static inline uint64_t ascii_bytes_at(uint64_t w0, uint64_t w1, size_t shift)
{
    if (shift == 0) return w0;
    if (shift < 8) return w0 >> (8 * shift) | w1 << (64 - 8 * shift);
    return w1 >> (8 * (shift - 8));
}

/* Whether h (hn bytes, all that is read) folded contains the needle (ascii), where
 * folding lowers ASCII letters when lower and keeps every other ASCII byte: what
 * text_fold() does to ASCII for [c] and [d]. Since text_fold() folds each character
 * alone and an ASCII byte is always a character of its own, a match among ASCII bytes
 * is a match of the whole fold. A haystack of up to 16 bytes (the usual field) is
 * searched here, in two words folded once (folding keeps each byte in place and its top
 * bit), at most two blocks of places. */
__attribute__((always_inline)) static inline ascii_verdict ascii_contains(const ascii_needle *n, const char *haystack,
                                                                          size_t hn)
{
    if (n->size == 0) return ASCII_FOUND;
    if (n->size > hn) return ASCII_ABSENT; /* folding never lengthens the haystack */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return ASCII_UNDECIDED; /* the blocks' places are counted from the low byte */
#endif
    const uint8_t *h = (const uint8_t *)haystack;
    if (hn > 16) return ascii_contains_long(n, h, hn);
    uint64_t w0, w1;
    ascii_load_short(h, hn, &w0, &w1);
    w0 = ascii_fold8(w0, n->lower);
    if (hn <= 8) { /* one word (w1 is zero): the usual short field, one block of places */
        uint64_t hits = ascii_candidates(w0, w0 >> (8 * (n->size - 1)), n) & ascii_places_up_to(hn - n->size);
        if (hits && ascii_confirm(n, h, 0, hits)) return ASCII_FOUND;
        return w0 & ASCII_TOP ? ASCII_UNDECIDED : ASCII_ABSENT;
    }
    if (hn > 8) w1 = ascii_fold8(w1, n->lower);
    size_t last = hn - n->size; /* the last place the needle can start: < 16 */
    uint64_t hits = ascii_candidates(w0, ascii_bytes_at(w0, w1, n->size - 1), n) &
                    ascii_places_up_to(last < 7 ? last : 7);
    if (hits && ascii_confirm(n, h, 0, hits)) return ASCII_FOUND;
    if (last >= 8) { /* then size <= 8: the second block's last bytes lie in w1 */
        hits = ascii_candidates(w1, ascii_bytes_at(w1, 0, n->size - 1), n) & ascii_places_up_to(last - 8);
        if (hits && ascii_confirm(n, h, 8, hits)) return ASCII_FOUND;
    }
    return (w0 | w1) & ASCII_TOP ? ASCII_UNDECIDED : ASCII_ABSENT;
}

#endif
