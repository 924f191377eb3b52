/* String operators and the [c] and [d] options.
 *
 * Which characters fold follows realm-core's documented rule: case-insensitive
 * matching covers Latin Basic, Latin-1 Supplement, Latin Extended-A and Extended-B
 * (code points below 592); other characters match only exactly. Folding maps a
 * character to its lower case ([c]) and a Latin letter with a diacritic to its base
 * letter ([d], which also drops combining marks U+0300-U+036F); both sides of a
 * comparison are folded, then compared as bytes. */
#include "query/results.h"

#include <string.h>

/* Latin-1 U+00C0-U+00FF and Latin Extended-A U+0100-U+017F without their diacritics;
 * '.' keeps the character (ligatures, letters of their own such as Æ, Ð, Þ, ß, Ŋ). */
static const char base_latin1[] = "AAAAAA.CEEEEIIII" ".NOOOOO.OUUUUY.." "aaaaaa.ceeeeiiii" ".nooooo.ouuuuy.y";
static const char base_extended_a[] = "AaAaAaCcCcCcCcDd" "DdEeEeEeEeEeGgGg" "GgGgHhHhIiIiIiIi" "Ii..JjKk.LlLlLlL"
                                      "lLlNnNnNn...OoOo" "Oo..RrRrRrSsSsSs" "SsTtTtTtUuUuUuUu" "UuUuWwYyYZzZzZz.";

/* Pairs whose upper case is the even code point (else the odd one), in Extended-A and -B. */
static bool upper_is_even(uint32_t c)
{
    return (c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177) || (c >= 0x1A0 && c <= 0x1A5) ||
           (c >= 0x1DE && c <= 0x1EF) || (c >= 0x1F8 && c <= 0x21F) || (c >= 0x222 && c <= 0x233) ||
           (c >= 0x246 && c <= 0x24F);
}

static bool upper_is_odd(uint32_t c)
{
    return (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E) || (c >= 0x1CD && c <= 0x1DC);
}

static uint32_t lower_case(uint32_t c)
{
    if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    if (c >= 0x250 || c < 0x100) return c;
    if (c == 0x130) return 'i'; /* capital I with dot above: inside the pairs below, not one of them */
    if (upper_is_even(c)) return c & 1u ? c : c + 1;
    if (upper_is_odd(c)) return c & 1u ? c + 1 : c;
    switch (c) {
    case 0x178: return 0xFF;
    case 0x17F: return 's';
    case 0x1C4: case 0x1C5: return 0x1C6;
    case 0x1C7: case 0x1C8: return 0x1C9;
    case 0x1CA: case 0x1CB: return 0x1CC;
    case 0x1F1: case 0x1F2: return 0x1F3;
    case 0x1F4: return 0x1F5;
    default: return c;
    }
}

static uint32_t strip_diacritic(uint32_t c)
{
    const char *table = c >= 0xC0 && c < 0x100 ? base_latin1 : c >= 0x100 && c < 0x180 ? base_extended_a : NULL;
    if (!table) return c;
    char base = table[c - (c < 0x100 ? 0xC0 : 0x100)];
    return base == '.' ? c : (uint32_t)(unsigned char)base;
}

/* Decodes the UTF-8 character at s (n bytes left, n > 0); invalid bytes decode alone. */
static uint32_t next_char(const unsigned char *s, size_t n, size_t *used)
{
    unsigned char b = s[0];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || len > n) {
        *used = 1;
        return b;
    }
    uint32_t c = len == 1 ? b : b & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *used = 1;
            return b;
        }
        c = c << 6 | (s[i] & 0x3F);
    }
    *used = len;
    return c;
}

static size_t put_char(uint32_t c, uint8_t *out)
{
    if (c < 0x80) { out[0] = (uint8_t)c; return 1; }
    if (c < 0x800) { out[0] = (uint8_t)(0xC0 | c >> 6); out[1] = (uint8_t)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | c >> 12); out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | c >> 18); out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F)); out[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

int text_fold(const char *s, size_t n, unsigned options, byte_buffer *out)
{
    out->size = 0;
    if (buffer_reserve(out, n + 1)) return LAR_ENOMEM; /* folding never lengthens a character */
    const unsigned char *in = (const unsigned char *)s;
    uint8_t *to = out->data;
    for (size_t at = 0; at < n;) {
        if (in[at] < 0x80) { /* ASCII, the usual case: no decoding */
            uint8_t b = in[at++];
            to[out->size++] = (options & OPT_CASE) && b >= 'A' && b <= 'Z' ? (uint8_t)(b + 32) : b;
            continue;
        }
        size_t used;
        uint32_t c = next_char(in + at, n - at, &used);
        bool invalid = used == 1 && in[at] >= 0x80;
        if (invalid) {
            to[out->size++] = in[at++]; /* kept as it is */
            continue;
        }
        at += used;
        if ((options & OPT_DIACRITIC) && c >= 0x300 && c <= 0x36F) continue;
        if (options & OPT_DIACRITIC) c = strip_diacritic(c);
        if (options & OPT_CASE) c = lower_case(c);
        out->size += put_char(c, to + out->size);
    }
    return LAR_OK;
}

static size_t char_length(const char *s, size_t n)
{
    size_t used;
    next_char((const unsigned char *)s, n, &used);
    return used;
}

/* LIKE: '*' matches any run of characters, '?' one character; the rest matches itself.
 * Backtracks only to the last '*', so it runs in O(n * m) at worst. */
static bool like(const char *h, size_t hn, const char *p, size_t pn)
{
    size_t hi = 0, pi = 0, star = (size_t)-1, resume = 0;
    while (hi < hn) {
        if (pi < pn && p[pi] == '*') {
            star = ++pi;
            resume = hi;
        } else if (pi < pn && p[pi] == '?') {
            hi += char_length(h + hi, hn - hi);
            pi++;
        } else if (pi < pn && p[pi] == h[hi]) {
            hi++;
            pi++;
        } else if (star != (size_t)-1) {
            pi = star;
            resume += char_length(h + resume, hn - resume);
            hi = resume;
        } else {
            return false;
        }
    }
    while (pi < pn && p[pi] == '*') pi++;
    return pi == pn;
}

bool text_match(cmp_op op, const char *h, size_t hn, const char *needle, size_t nn)
{
    switch (op) {
    case OP_EQ: return hn == nn && (nn == 0 || memcmp(h, needle, nn) == 0);
    case OP_NE: return !(hn == nn && (nn == 0 || memcmp(h, needle, nn) == 0));
    case OP_BEGINSWITH: return nn <= hn && (nn == 0 || memcmp(h, needle, nn) == 0);
    case OP_ENDSWITH: return nn <= hn && (nn == 0 || memcmp(h + hn - nn, needle, nn) == 0);
    case OP_CONTAINS: return nn == 0 || (hn >= nn && memmem(h, hn, needle, nn) != NULL);
    case OP_LIKE: return like(h, hn, needle, nn);
    default: return false;
    }
}
