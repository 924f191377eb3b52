/* ascii_contains (CCore/query/ascii_search.c), the search of CONTAINS[c] and CONTAINS[d]
 * for an ASCII needle, against the general test: text_fold() of the haystack, then a
 * plain search. Each haystack sits in a heap block of its exact size, so that a read
 * past its end fails under AddressSanitizer. */
#include "test.h"
#include "query/results.h"
#include "query/ascii.h"

#include <stdlib.h>

/* What the general test says: the folded needle in the folded haystack. */
static bool general_contains(const char *h, size_t hn, const char *needle, size_t nn, unsigned options)
{
    byte_buffer folded = {0};
    CHECK_OK(text_fold(h, hn, options, &folded));
    bool found = nn == 0 || (folded.size >= nn && memmem(folded.data, folded.size, needle, nn) != NULL);
    buffer_free(&folded);
    return found;
}

static bool all_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80) return false;
    return true;
}

/* Whether some run of ASCII bytes of h folds to the needle (lower: letters lowered). */
static bool ascii_run_matches(const char *h, size_t hn, const char *needle, size_t nn, bool lower)
{
    for (size_t at = 0; at + nn <= hn; at++) {
        size_t k = 0;
        for (; k < nn; k++) {
            unsigned char b = (unsigned char)h[at + k];
            if (b >= 0x80) break;
            if (lower && b >= 'A' && b <= 'Z') b += 32;
            if (b != (unsigned char)needle[k]) break;
        }
        if (k == nn) return true;
    }
    return false;
}

/* Checks one search: a decided verdict is the general test's; it is decided whenever the
 * haystack is ASCII (and the needle fits blocks), and found whenever an ASCII run matches. */
static void check_search(const char *text, size_t hn, const char *needle, size_t nn, unsigned options)
{
    char *h = malloc(hn ? hn : 1);
    CHECK(h != NULL);
    memcpy(h, text, hn);
    bool lower = options & OPT_CASE;
    ascii_needle n = ascii_needle_of(needle, nn, lower);
    CHECK(n.ascii);
    ascii_verdict got = ascii_contains(&n, h, hn);
    bool want = general_contains(h, hn, needle, nn, options);
    bool fits = nn == 0 || nn > hn || hn <= 16 || hn >= nn + 7;
    if ((got == ASCII_FOUND && !want) || (got == ASCII_ABSENT && want) ||
        (got == ASCII_UNDECIDED && fits && all_ascii(h, hn)) ||
        (got != ASCII_FOUND && fits && ascii_run_matches(h, hn, needle, nn, lower)))
        test_fail(__FILE__, __LINE__, "'%.*s' (%zu bytes) CONTAINS%s '%.*s': verdict %d, general %d", (int)hn, h, hn,
                  lower ? "[c]" : "[d]", (int)nn, needle, (int)got, want);
    free(h);
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static size_t below(size_t bound)
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (size_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 33) % bound;
}

TEST(ascii_contains_finds_the_needle_at_every_place_of_every_length)
{
    static const char *const needles[] = {"a", "ab", "xyz", "abcdefg", "abcdefgh", "abcdefghi", "q0q0q0q0q0q"};
    char text[48], upper[48];
    for (size_t w = 0; w < sizeof needles / sizeof needles[0]; w++) {
        const char *needle = needles[w];
        size_t nn = strlen(needle);
        for (size_t hn = 0; hn <= 40; hn++) {
            for (size_t at = 0; at + nn <= hn; at++) {
                memset(text, '.', hn);
                memcpy(text + at, needle, nn);
                for (size_t i = 0; i < hn; i++) upper[i] = text[i] >= 'a' && text[i] <= 'z' ? text[i] - 32 : text[i];
                check_search(text, hn, needle, nn, OPT_CASE);
                check_search(upper, hn, needle, nn, OPT_CASE);
                check_search(text, hn, needle, nn, OPT_DIACRITIC);
                check_search(upper, hn, needle, nn, OPT_DIACRITIC); /* [d] alone keeps case: absent */
                /* A near miss: the last byte wrong, at the same place. */
                text[at + nn - 1] = '#';
                check_search(text, hn, needle, nn, OPT_CASE);
            }
            memset(text, '.', hn);
            check_search(text, hn, needle, nn, OPT_CASE); /* absent, and for hn < nn longer than the haystack */
        }
    }
}

TEST(ascii_contains_empty_needle_and_haystack)
{
    check_search("", 0, "", 0, OPT_CASE);
    check_search("", 0, "a", 1, OPT_CASE);
    check_search("abc", 3, "", 0, OPT_CASE);
    check_search("\xc3\xa9", 2, "", 0, OPT_CASE);
    check_search("ab", 2, "abc", 3, OPT_CASE);
    ascii_needle empty = ascii_needle_of("", 0, true);
    CHECK_EQ(ascii_contains(&empty, "\xff", 1), ASCII_FOUND);
    ascii_needle abc = ascii_needle_of("abc", 3, true);
    CHECK_EQ(ascii_contains(&abc, "ab", 2), ASCII_ABSENT);
}

TEST(ascii_contains_leaves_other_bytes_to_the_general_test)
{
    /* U+017F (long s) folds to 's' for [c], U+00C9 (E acute) to 'e' for [d]: only the general test sees them. */
    check_search("x\xc5\xbfy", 4, "xsy", 3, OPT_CASE);
    check_search("x\xc4\xb0y", 4, "xiy", 3, OPT_CASE);
    check_search("xx\xc3\x89yy", 6, "xey", 3, OPT_DIACRITIC | OPT_CASE);
    check_search("0123456789abcdef\xc5\xbf", 18, "fs", 2, OPT_CASE);       /* long, at the end */
    check_search("\xc5\xbf" "0123456789abcdefghij", 22, "s0", 2, OPT_CASE); /* long, at the start */
    check_search("a\xcc\x81" "b", 4, "ab", 2, OPT_DIACRITIC);               /* a combining mark drops */
    ascii_needle xsy = ascii_needle_of("xsy", 3, true);
    CHECK_EQ(ascii_contains(&xsy, "x\xc5\xbfy", 4), ASCII_UNDECIDED);
    CHECK_EQ(ascii_contains(&xsy, "x\xc5\xbfyXSY", 7), ASCII_FOUND); /* an ASCII run matches */
    CHECK_EQ(ascii_contains(&xsy, "xSy", 3), ASCII_FOUND);
    CHECK_EQ(ascii_contains(&xsy, "xSz", 3), ASCII_ABSENT);
    ascii_needle non_ascii = ascii_needle_of("\xc3\xa9", 2, true);
    CHECK(!non_ascii.ascii);
}

TEST(ascii_contains_agrees_with_text_fold_on_random_text)
{
    static const char *const pieces[] = {"a", "b", "A", "B", "z", "Z", "@", "[", "`", "{", "0", " ", "\x7f",
                                         "\xc3\x89", "\xc3\xa9", "\xc4\xb0", "\xc5\xbf", "\xcc\x81", "\x80", "\xff"};
    static const char needle_bytes[] = "abzAB@[`{0 ";
    char text[64], needle[16];
    for (int round = 0; round < 20000; round++) {
        size_t hn = 0, target = below(41);
        bool ascii_only = below(2);
        while (hn < target) {
            const char *piece = pieces[below(ascii_only ? 13 : sizeof pieces / sizeof pieces[0])];
            size_t size = strlen(piece);
            if (hn + size > target) break;
            memcpy(text + hn, piece, size);
            hn += size;
        }
        if (below(4) == 0 && hn) text[below(hn)] = '\0'; /* a NUL inside */
        bool lower = below(2);
        size_t nn = below(10);
        for (size_t i = 0; i < nn; i++) {
            char c = needle_bytes[below(sizeof needle_bytes - 1)];
            needle[i] = lower && c >= 'A' && c <= 'Z' ? c + 32 : c;
        }
        if (nn && hn >= nn && below(2)) { /* often taken from the text itself */
            size_t at = below(hn - nn + 1);
            memcpy(needle, text + at, nn);
            for (size_t i = 0; i < nn; i++) {
                if ((unsigned char)needle[i] >= 0x80) needle[i] = 'a';
                if (lower && needle[i] >= 'A' && needle[i] <= 'Z') needle[i] += 32;
            }
        }
        check_search(text, hn, needle, nn, lower ? OPT_CASE : OPT_DIACRITIC);
    }
}
