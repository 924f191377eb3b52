/* Type names and UTF-8 validation. */
#include "base/base.h"

static const char *const type_names[] = {
    "null", "int", "bool", "float", "double", "string", "binary", "timestamp",
    "objectId", "uuid", "decimal128", "link", "mixed", "linkingObjects", "list", "dictionary",
};

const char *type_name(lar_type type)
{
    return (unsigned)type < sizeof type_names / sizeof *type_names ? type_names[type] : "unknown";
}

/* RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF. */
bool utf8_valid(const char *data, size_t size)
{
    const uint8_t *s = (const uint8_t *)data, *end = s + size;
    while (s < end) {
        uint8_t c = *s++;
        if (c < 0x80) continue;
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
