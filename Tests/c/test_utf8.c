/* utf8_valid (CCore/base/text.c) against Unicode's table of well-formed UTF-8 (RFC 3629), on
 * strings built to put every kind of sequence, valid or broken, at every offset around
 * the eight-byte steps of its ASCII path. Each string sits in a heap block of its exact
 * size, so that a read past its end fails under AddressSanitizer. */
#include "test.h"
#include "base/base.h"

#include <stdlib.h>

/* The rule as Unicode's table of well-formed byte sequences (Table 3-7) states it, one
 * sequence at a time: the first byte's range gives the second byte's range and the length. */
static bool reference_valid(const uint8_t *s, size_t n)
{
    static const struct { uint8_t first_lo, first_hi, second_lo, second_hi, length; } rows[] = {
        {0x00, 0x7F, 0, 0, 1},       {0xC2, 0xDF, 0x80, 0xBF, 2}, {0xE0, 0xE0, 0xA0, 0xBF, 3},
        {0xE1, 0xEC, 0x80, 0xBF, 3}, {0xED, 0xED, 0x80, 0x9F, 3}, {0xEE, 0xEF, 0x80, 0xBF, 3},
        {0xF0, 0xF0, 0x90, 0xBF, 4}, {0xF1, 0xF3, 0x80, 0xBF, 4}, {0xF4, 0xF4, 0x80, 0x8F, 4},
    };
    size_t i = 0;
    while (i < n) {
        size_t r = 0;
        while (r < COUNT_OF(rows) && !(s[i] >= rows[r].first_lo && s[i] <= rows[r].first_hi)) r++;
        if (r == COUNT_OF(rows)) return false;
        size_t length = rows[r].length;
        if (n - i < length) return false;
        if (length > 1 && (s[i + 1] < rows[r].second_lo || s[i + 1] > rows[r].second_hi)) return false;
        for (size_t k = 2; k < length; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) return false;
        i += length;
    }
    return true;
}

static bool checked_valid(const uint8_t *bytes, size_t n)
{
    char *exact = malloc(n ? n : 1);
    CHECK(exact != NULL);
    memcpy(exact, bytes, n);
    bool valid = utf8_valid(exact, n);
    free(exact);
    return valid;
}

/* Sequences to plant: valid ones of each length, and broken ones of each kind. */
static const char *const pieces[] = {
    "\xC3\xA9",         /* é */
    "\xE2\x9C\x93",     /* ✓ */
    "\xF0\x9D\x84\x9E", /* 𝄞 */
    "\x80",             /* a lone continuation byte */
    "\xC0\xAF",         /* an overlong '/' */
    "\xE0\x80\xAF",     /* an overlong, three bytes */
    "\xED\xA0\x80",     /* a surrogate */
    "\xF4\x90\x80\x80", /* above U+10FFFF */
    "\xF5\x80\x80\x80", /* a lead byte no sequence has */
    "\xE2\x9C",         /* cut short (at the end of the string: truncated) */
    "\xC3",             /* cut short */
    "\xFF",
};

TEST(utf8_valid_agrees_with_the_rule_at_every_offset)
{
    uint8_t text[64];
    size_t checked = 0;
    for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
        size_t m = strlen(pieces[p]);
        for (size_t length = m; length <= 40; length++) {
            for (size_t at = 0; at + m <= length; at++) {
                memset(text, 'a', length);
                memcpy(text + at, pieces[p], m);
                CHECK_EQ(checked_valid(text, length), reference_valid(text, length));
                checked++;
            }
        }
    }
    CHECK(checked > 5000);
}

TEST(utf8_valid_agrees_with_the_rule_on_random_bytes)
{
    uint8_t text[48];
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 200000; round++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        size_t length = (size_t)(state % (sizeof text + 1));
        for (size_t i = 0; i < length; i++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            /* Mostly ASCII, as text is, with lead and continuation bytes among it. */
            uint8_t r = (uint8_t)(state >> 24);
            text[i] = r < 200 ? (uint8_t)(r % 0x80) : (uint8_t)(0x80 + (state >> 40) % 0x80);
        }
        CHECK_EQ(checked_valid(text, length), reference_valid(text, length));
    }
}

TEST(utf8_valid_takes_empty_and_long_ascii)
{
    CHECK(utf8_valid("", 0));
    char long_text[1000];
    memset(long_text, 'x', sizeof long_text);
    CHECK(checked_valid((const uint8_t *)long_text, sizeof long_text));
    long_text[999] = (char)0x80;
    CHECK(!checked_valid((const uint8_t *)long_text, sizeof long_text));
}
