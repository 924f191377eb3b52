/* ASCII text 8 bytes at a time (one uint64_t), for the string tests of a scan: lowering
 * letters, and CONTAINS[c] / CONTAINS[d] without folding a copy of the haystack
 * (ascii_search.c). Private to the query layer. */
#ifndef LARDER_ASCII_H
#define LARDER_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Whether h (hn bytes, all that is read) folded contains the needle (ascii), where
 * folding lowers ASCII letters when lower and keeps every other ASCII byte: what
 * text_fold() does to ASCII for [c] and [d]. Since text_fold() folds each character
 * alone and an ASCII byte is always a character of its own, a match among ASCII bytes
 * is a match of the whole fold. */
ascii_verdict ascii_contains(const ascii_needle *needle, const char *h, size_t hn);

#endif
