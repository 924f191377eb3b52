/* Type names and UTF-8 validation. */
#include "base/base.h"

#include <string.h>

static const char *const type_names[] = {
    "null", "int", "bool", "float", "double", "string", "binary", "timestamp",
    "objectId", "uuid", "decimal128", "link", "mixed", "linkingObjects", "list", "dictionary",
};

const char *type_name(lar_type type)
{
    return (unsigned)type < sizeof type_names / sizeof *type_names ? type_names[type] : "unknown";
}

/* Whether the eight bytes at s are all ASCII. */
static inline bool ascii_word(const uint8_t *s)
{
    uint64_t word;
    memcpy(&word, s, sizeof word);
    return !(word & 0x8080808080808080ull);
}

/* RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF. Runs of ASCII, most
 * of most text, are checked eight bytes at a time: one byte at a time, checking the
 * strings of a new object took more instructions than encoding its row. */
bool utf8_valid(const char *data, size_t size)
{
    const uint8_t *s = (const uint8_t *)data, *end = s + size;
    while (s < end) {
        while (end - s >= 8 && ascii_word(s)) s += 8;
        /* Fewer than eight bytes left: the string's last eight (some checked already)
         * are ASCII only if these are. */
        if (end - s < 8 && size >= 8 && ascii_word(end - 8)) return true;
        while (s < end && *s < 0x80) s++;
        if (s == end) return true;
        uint8_t c = *s++;
        size_t extra;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { extra = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { extra = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { extra = 3; cp = c & 0x07; }
        else return false;
        if ((size_t)(end - s) < extra) return false;
        for (size_t i = 0; i < extra; i++) {
            if ((s[i] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i] & 0x3F);
        }
        s += extra;
        if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
    }
    return true;
}
