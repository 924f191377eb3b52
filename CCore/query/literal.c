/* Literals of the query language, read and written: ObjectIds, UUIDs, decimal128,
 * dates, base64, and the canonical text of any value. */
#include "query/query.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool literal_oid(const char *s, size_t n, lar_object_id *out)
{
    if (n != 24) return false;
    for (size_t i = 0; i < 12; i++) {
        int h = hex_digit(s[2 * i]), l = hex_digit(s[2 * i + 1]);
        if (h < 0 || l < 0) return false;
        out->bytes[i] = (uint8_t)(h << 4 | l);
    }
    return true;
}

bool literal_uuid(const char *s, size_t n, lar_uuid *out)
{
    if (n != 36) return false;
    size_t b = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') return false;
            i++;
            continue;
        }
        int h = hex_digit(s[i]), l = hex_digit(s[i + 1]);
        if (h < 0 || l < 0) return false;
        out->bytes[b++] = (uint8_t)(h << 4 | l);
        i += 2;
    }
    return true;
}

#define DEC_BIAS 6176
#define DEC_EXP_MAX 6111
#define DEC_EXP_MIN (-6176)

static bool word_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

bool literal_decimal(const char *s, size_t n, lar_decimal128 *out)
{
    const char *p = s, *end = s + n;
    bool negative = false;
    if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    uint64_t sign = negative ? (uint64_t)1 << 63 : 0;
    size_t rest = (size_t)(end - p);
    if (word_is(p, rest, "inf") || word_is(p, rest, "infinity")) {
        out->high = sign | 0x7800000000000000ull;
        out->low = 0;
        return true;
    }
    if (word_is(p, rest, "nan")) {
        out->high = 0x7C00000000000000ull;
        out->low = 0;
        return true;
    }
    unsigned __int128 coef = 0;
    int digits = 0;
    long exponent = 0;
    bool any = false, point = false;
    for (; p < end; p++) {
        if (*p == '.' && !point) { point = true; continue; }
        if (*p < '0' || *p > '9') break;
        any = true;
        if (coef == 0 && *p == '0') { if (point) exponent--; continue; }
        if (digits == 34) {
            if (*p != '0') return false;
            if (!point) exponent++;
            continue;
        }
        coef = coef * 10 + (unsigned)(*p - '0');
        digits++;
        if (point) exponent--;
    }
    if (!any) return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (p >= end) return false;
        long e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (e > 100000) return false;
            e = e * 10 + (*p - '0');
        }
        exponent += eneg ? -e : e;
    }
    if (p != end) return false;
    if (coef == 0) {
        if (exponent < DEC_EXP_MIN) exponent = DEC_EXP_MIN;
        if (exponent > DEC_EXP_MAX) exponent = DEC_EXP_MAX;
    }
    /* Trailing zeros keep a large exponent in range; too small a one is refused. */
    while (exponent > DEC_EXP_MAX && digits < 34) {
        coef *= 10;
        digits++;
        exponent--;
    }
    if (exponent > DEC_EXP_MAX || exponent < DEC_EXP_MIN) return false;
    uint64_t biased = (uint64_t)(exponent + DEC_BIAS);
    out->low = (uint64_t)coef;
    out->high = sign | biased << 49 | (uint64_t)(coef >> 64);
    return true;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* One group of 1 to max digits at s[*at]; then the separator sep unless sep is 0. */
static bool date_group(const char *s, size_t n, size_t *at, int max, char sep, int64_t *out)
{
    int64_t v = 0;
    int count = 0;
    while (*at < n && s[*at] >= '0' && s[*at] <= '9') {
        if (++count > max) return false;
        v = v * 10 + (s[(*at)++] - '0');
    }
    if (count == 0) return false;
    if (sep) {
        if (*at >= n || (s[*at] != sep && !(sep == '@' && s[*at] == 'T'))) return false;
        (*at)++;
    }
    *out = v;
    return true;
}

/* YYYY-MM-DD@HH:MM:SS[:nanos], each group of any width (as realm-core reads them). */
bool literal_date(const char *s, size_t n, lar_timestamp *out, size_t *used)
{
    int64_t y, mo, d, h, mi, se;
    size_t at = 0;
    if (!date_group(s, n, &at, 6, '-', &y) || !date_group(s, n, &at, 2, '-', &mo) ||
        !date_group(s, n, &at, 2, '@', &d) || !date_group(s, n, &at, 2, ':', &h) ||
        !date_group(s, n, &at, 2, ':', &mi) || !date_group(s, n, &at, 2, 0, &se))
        return false;
    static const int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || h > 23 || mi > 59 || se > 60) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap) return false;
    int64_t nanos = 0;
    if (at + 1 < n && s[at] == ':' && s[at + 1] >= '0' && s[at + 1] <= '9') {
        at++;
        if (!date_group(s, n, &at, 9, 0, &nanos)) return false;
    }
    out->seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    out->nanoseconds = (int32_t)nanos;
    if (out->seconds < 0 && nanos) {
        /* Same sign as the seconds: -1.5 s is (-1, -500000000). */
        out->seconds += 1;
        out->nanoseconds = (int32_t)(nanos - 1000000000);
    }
    *used = at;
    return true;
}

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c)
{
    const char *p = c ? strchr(b64_chars, c) : NULL;
    return p ? (int)(p - b64_chars) : -1;
}

bool literal_base64(arena *a, const char *s, size_t n, lar_binary *out)
{
    if (n % 4) return false;
    uint8_t *bytes = arena_alloc(a, n / 4 * 3 + 1);
    if (!bytes) return false;
    size_t size = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            if (s[i + j] == '=' && i + 4 == n && j >= 2) {
                v[j] = 0;
                pad++;
                continue;
            }
            if (pad) return false;
            v[j] = b64_value(s[i + j]);
            if (v[j] < 0) return false;
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        bytes[size++] = (uint8_t)(w >> 16);
        if (pad < 2) bytes[size++] = (uint8_t)(w >> 8);
        if (pad < 1) bytes[size++] = (uint8_t)w;
    }
    out->data = bytes;
    out->size = size;
    return true;
}

/* ---- writing ---- */

void out_bytes(text_out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, o->length++)
        if (o->length + 1 < o->size) o->buffer[o->length] = s[i];
}

void out_str(text_out *o, const char *s) { out_bytes(o, s, strlen(s)); }

void out_fmt(text_out *o, const char *format, ...)
{
    char buf[128];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    if (n > 0) out_bytes(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void out_base64(text_out *o, const void *data, size_t size)
{
    const uint8_t *b = data;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t w = (uint32_t)b[i] << 16 | (i + 1 < size ? (uint32_t)b[i + 1] << 8 : 0) |
                     (i + 2 < size ? b[i + 2] : 0);
        char c[4] = {b64_chars[w >> 18], b64_chars[(w >> 12) & 63],
                     i + 1 < size ? b64_chars[(w >> 6) & 63] : '=', i + 2 < size ? b64_chars[w & 63] : '='};
        out_bytes(o, c, 4);
    }
}

void out_decimal(text_out *o, lar_decimal128 d)
{
    bool negative = d.high >> 63;
    if ((d.high & 0x7C00000000000000ull) == 0x7C00000000000000ull) { out_str(o, "decimal128(nan)"); return; }
    if ((d.high & 0x7800000000000000ull) == 0x7800000000000000ull) {
        out_str(o, negative ? "decimal128(-inf)" : "decimal128(inf)");
        return;
    }
    unsigned __int128 coef;
    int exponent;
    if ((d.high & 0x6000000000000000ull) == 0x6000000000000000ull) {
        coef = 0; /* the large-coefficient form is never canonical: zero */
        exponent = (int)((d.high >> 47) & 0x3FFF) - DEC_BIAS;
    } else {
        coef = (unsigned __int128)(d.high & 0x1FFFFFFFFFFFFull) << 64 | d.low;
        exponent = (int)((d.high >> 49) & 0x3FFF) - DEC_BIAS;
    }
    unsigned __int128 limit = 1;
    for (int i = 0; i < 34; i++) limit *= 10;
    if (coef >= limit) coef = 0;
    char digits[40];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(coef % 10));
        coef /= 10;
    } while (coef);
    char text[80];
    int t = 0;
    if (negative) text[t++] = '-';
    if (exponent <= 0 && exponent > -40) {
        int point = n + exponent; /* digits before the point */
        if (point <= 0) {
            text[t++] = '0';
            if (exponent < 0) text[t++] = '.';
            for (int i = 0; i < -point; i++) text[t++] = '0';
            for (int i = n - 1; i >= 0; i--) text[t++] = digits[i];
        } else {
            for (int i = n - 1; i >= 0; i--) {
                text[t++] = digits[i];
                if (i == n - point && i > 0 && exponent < 0) text[t++] = '.';
            }
        }
        text[t] = 0;
        out_fmt(o, "decimal128(%s)", text);
    } else {
        for (int i = n - 1; i >= 0; i--) text[t++] = digits[i];
        text[t] = 0;
        out_fmt(o, "decimal128(%sE%d)", text, exponent);
    }
}

static void out_double(text_out *o, double v, int max_precision)
{
    if (isnan(v)) { out_str(o, "nan"); return; }
    if (isinf(v)) { out_str(o, v < 0 ? "-inf" : "inf"); return; }
    char buf[64];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (precision >= max_precision) break;
        if (max_precision == 9 ? (float)strtod(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    /* Positional for moderate exponents: 1000.0 rather than 1e+03. */
    const char *e = strchr(buf, 'e');
    if (e) {
        int exponent = atoi(e + 1), digits = 0;
        for (const char *c = buf; c < e; c++) digits += *c >= '0' && *c <= '9';
        if (exponent >= -5 && exponent < 17) {
            int decimals = digits - 1 - exponent;
            snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, v);
        }
    }
    /* Keep it a float literal: "3" would read back as an int. */
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    out_str(o, buf);
}

void out_value(text_out *o, const lar_value *v, lar_env *env)
{
    switch (v->type) {
    case LAR_TYPE_NULL: out_str(o, "NULL"); break;
    case LAR_TYPE_INT: out_fmt(o, "%lld", (long long)v->as.integer); break;
    case LAR_TYPE_BOOL: out_str(o, v->as.boolean ? "true" : "false"); break;
    case LAR_TYPE_FLOAT:
        out_double(o, v->as.float32, 9);
        if (isfinite(v->as.float32)) out_str(o, "f");
        break;
    case LAR_TYPE_DOUBLE: out_double(o, v->as.float64, 17); break;
    case LAR_TYPE_STRING: {
        out_str(o, "\"");
        const char *s = v->as.string.data;
        for (size_t i = 0; i < v->as.string.size; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '"') out_str(o, "\\\"");
            else if (c == '\\') out_str(o, "\\\\");
            else if (c == '\n') out_str(o, "\\n");
            else if (c == '\r') out_str(o, "\\r");
            else if (c == '\t') out_str(o, "\\t");
            else if (c < 0x20 || c == 0x7F) out_fmt(o, "\\u%04x", c);
            else out_bytes(o, (const char *)&s[i], 1);
        }
        out_str(o, "\"");
        break;
    }
    case LAR_TYPE_BINARY:
        out_str(o, "B64\"");
        out_base64(o, v->as.binary.data, v->as.binary.size);
        out_str(o, "\"");
        break;
    case LAR_TYPE_TIMESTAMP:
        out_fmt(o, "T%lld:%ld", (long long)v->as.timestamp.seconds, (long)v->as.timestamp.nanoseconds);
        break;
    case LAR_TYPE_OBJECT_ID:
        out_str(o, "oid(");
        for (int i = 0; i < 12; i++) out_fmt(o, "%02x", v->as.object_id.bytes[i]);
        out_str(o, ")");
        break;
    case LAR_TYPE_UUID:
        out_str(o, "uuid(");
        for (int i = 0; i < 16; i++) {
            out_fmt(o, "%02x", v->as.uuid.bytes[i]);
            if (i == 3 || i == 5 || i == 7 || i == 9) out_str(o, "-");
        }
        out_str(o, ")");
        break;
    case LAR_TYPE_DECIMAL128: out_decimal(o, v->as.decimal128); break;
    case LAR_TYPE_LINK: {
        lar_class_info info;
        const char *name = env && lar_class_info_get(env, v->as.link.cls, &info) == LAR_OK ? info.name : "?";
        out_fmt(o, "obj(\"%.60s\", %llu)", name, (unsigned long long)v->as.link.key);
        break;
    }
    default: out_fmt(o, "<%s>", type_name(v->type)); break;
    }
}
