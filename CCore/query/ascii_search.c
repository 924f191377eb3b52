/* CONTAINS[c] and CONTAINS[d] of an ASCII needle, searched in the haystack's own bytes.
 *
 * Each block of 8 starting places is tested at once: the 8 bytes at the block and the 8
 * bytes size - 1 further on, folded, are compared with the needle's first and last
 * byte; only a place where both agree has its middle bytes compared. Folding a copy of
 * the haystack and searching the copy cost twice the instructions on short words (the
 * usual field). Nothing is read outside the haystack's hn bytes: a haystack of up to 16
 * bytes is loaded into two words (zero past its end) and searched in registers, a longer
 * one in place, its last block overlapping the one before. */
#include "query/ascii.h"

#include <string.h>

/* A haystack of up to this many bytes is searched in two words. */
#define SHORT_HAYSTACK 16

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* The top bit of each byte of x that is zero (exactly: no borrow reaches another byte). */
static inline uint64_t zero_bytes(uint64_t x)
{
    return ~(((x & ASCII_LOW7) + ASCII_LOW7) | x) & ASCII_TOP;
}

static inline uint64_t fold8(uint64_t x, bool lower)
{
    return lower ? ascii_lower8(x) : x;
}

ascii_needle ascii_needle_of(const char *bytes, size_t size, bool lower)
{
    ascii_needle n = {(const uint8_t *)bytes, size, 0, 0, lower, true};
    for (size_t i = 0; i < size; i++)
        if (n.bytes[i] >= 0x80) n.ascii = false;
    if (size) n.first = ASCII_ONES * n.bytes[0], n.last = ASCII_ONES * n.bytes[size - 1];
    return n;
}

static bool middle_matches(const uint8_t *at, const ascii_needle *n)
{
    for (size_t k = 1; k + 1 < n->size; k++) {
        uint8_t b = at[k];
        if (n->lower && (uint8_t)(b - 'A') < 26) b += 32;
        if (b != n->bytes[k]) return false;
    }
    return true;
}

/* Whether the needle starts at a place of hits (a top bit per byte of the block at
 * h + at) where its first and last bytes matched. */
__attribute__((noinline)) static bool confirm(const uint8_t *h, size_t at, uint64_t hits, const ascii_needle *n)
{
    for (; hits; hits &= hits - 1)
        if (middle_matches(h + at + (size_t)__builtin_ctzll(hits) / 8, n)) return true;
    return false;
}

/* The places of a block (a top bit per byte) whose first byte is the needle's first
 * and whose byte size - 1 on (in b) is its last; a and b folded. */
static inline uint64_t candidates(uint64_t a, uint64_t b, const ascii_needle *n)
{
    return zero_bytes(a ^ n->first) & zero_bytes(b ^ n->last);
}

/* The places 0...last of a block (last < 8). */
static inline uint64_t places_up_to(size_t last)
{
    return ASCII_TOP & (~0ull >> (8 * (7 - last)));
}

/* The hn <= 16 bytes at h as two words, zero past hn: overlapping loads, no loop. */
static inline void load_short(const uint8_t *h, size_t hn, uint64_t *w0, uint64_t *w1)
{
    *w1 = 0;
    if (hn >= 8) {
        *w0 = load8(h);
        if (hn > 8) *w1 = load8(h + hn - 8) >> (8 * (16 - hn)); /* drops the bytes w0 holds */
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
static inline uint64_t bytes_at(uint64_t w0, uint64_t w1, size_t shift)
{
    if (shift == 0) return w0;
    if (shift < 8) return w0 >> (8 * shift) | w1 << (64 - 8 * shift);
    return w1 >> (8 * (shift - 8));
}

/* hn <= 16: the haystack in two words, folded once (folding keeps each byte in place
 * and its top bit), and at most two blocks of places. */
static ascii_verdict search_short(const ascii_needle *n, const uint8_t *h, size_t hn)
{
    uint64_t w0, w1;
    load_short(h, hn, &w0, &w1);
    w0 = fold8(w0, n->lower), w1 = fold8(w1, n->lower);
    size_t last = hn - n->size; /* the last place the needle can start: < 16 */
    uint64_t hits = candidates(w0, bytes_at(w0, w1, n->size - 1), n) & places_up_to(last < 7 ? last : 7);
    if (hits && confirm(h, 0, hits, n)) return ASCII_FOUND;
    if (last >= 8) { /* then size <= 8: the second block's last bytes lie in w1 */
        hits = candidates(w1, bytes_at(w1, 0, n->size - 1), n) & places_up_to(last - 8);
        if (hits && confirm(h, 8, hits, n)) return ASCII_FOUND;
    }
    return (w0 | w1) & ASCII_TOP ? ASCII_UNDECIDED : ASCII_ABSENT;
}

/* hn > 16 and hn >= size + 7: blocks in place, the last one overlapping the one before. */
__attribute__((noinline)) static ascii_verdict search_long(const ascii_needle *n, const uint8_t *h, size_t hn)
{
    size_t last = hn - n->size;
    for (size_t at = 0;; at += 8) {
        if (at + 7 > last) at = last - 7;
        uint64_t a = fold8(load8(h + at), n->lower), b = fold8(load8(h + at + n->size - 1), n->lower);
        uint64_t hits = candidates(a, b, n);
        if (hits && confirm(h, at, hits, n)) return ASCII_FOUND;
        if (at + 7 == last) break;
    }
    uint64_t high = 0;
    for (size_t at = 0; at < hn; at += 8) high |= load8(h + (at + 8 <= hn ? at : hn - 8));
    return high & ASCII_TOP ? ASCII_UNDECIDED : ASCII_ABSENT;
}

ascii_verdict ascii_contains(const ascii_needle *n, const char *h, size_t hn)
{
    if (n->size == 0) return ASCII_FOUND;
    if (n->size > hn) return ASCII_ABSENT; /* folding never lengthens the haystack */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return ASCII_UNDECIDED; /* the blocks' places are counted from the low byte */
#endif
    if (hn <= SHORT_HAYSTACK) return search_short(n, (const uint8_t *)h, hn);
    if (hn < n->size + 7) return ASCII_UNDECIDED; /* too few places for a block: rare, left to the general test */
    return search_long(n, (const uint8_t *)h, hn);
}
