/* CONTAINS[c] and CONTAINS[d] of an ASCII needle (query/ascii.h): the needle's
 * preparation, the comparison of a candidate's middle bytes, and haystacks of more
 * than 16 bytes, searched in place, their last block overlapping the one before.
 * Folding a copy of the haystack and searching the copy cost twice the instructions on
 * short words. */
#include "query/ascii.h"

ascii_needle ascii_needle_of(const char *bytes, size_t size, bool lower)
{
    ascii_needle n = {(const uint8_t *)bytes, size, 0, 0, lower, true};
    for (size_t i = 0; i < size; i++)
        if (n.bytes[i] >= 0x80) n.ascii = false;
    if (size) n.first = ASCII_ONES * n.bytes[0], n.last = ASCII_ONES * n.bytes[size - 1];
    return n;
}

static bool middle_matches(const ascii_needle *n, const uint8_t *at)
{
    for (size_t k = 1; k + 1 < n->size; k++) {
        uint8_t b = at[k];
        if (n->lower && (uint8_t)(b - 'A') < 26) b += 32;
        if (b != n->bytes[k]) return false;
    }
    return true;
}

bool ascii_confirm(const ascii_needle *n, const uint8_t *h, size_t at, uint64_t hits)
{
    for (; hits; hits &= hits - 1)
        if (middle_matches(n, h + at + (size_t)__builtin_ctzll(hits) / 8)) return true;
    return false;
}

ascii_verdict ascii_contains_long(const ascii_needle *n, const uint8_t *h, size_t hn)
{
    if (hn < n->size + 7) return ASCII_UNDECIDED; /* too few places for a block: rare, left to the general test */
    size_t last = hn - n->size;
    for (size_t at = 0;; at += 8) {
        if (at + 7 > last) at = last - 7;
        uint64_t a = ascii_fold8(ascii_load8(h + at), n->lower);
        uint64_t b = ascii_fold8(ascii_load8(h + at + n->size - 1), n->lower);
        uint64_t hits = ascii_candidates(a, b, n);
        if (hits && ascii_confirm(n, h, at, hits)) return ASCII_FOUND;
        if (at + 7 == last) break;
    }
    uint64_t high = 0;
    for (size_t at = 0; at < hn; at += 8) high |= ascii_load8(h + (at + 8 <= hn ? at : hn - 8));
    return high & ASCII_TOP ? ASCII_UNDECIDED : ASCII_ABSENT;
}
