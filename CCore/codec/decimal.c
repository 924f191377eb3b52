/* Decimal128 values as numbers: their parts, and how they compare with ints and
 * doubles by exact value, which the keys of sets of mixed values need (keys.c): there,
 * as in Realm, int 1, double 1.0 and decimal128 1 are one element.
 *
 * A double's exact value is a finite decimal (of at most 767 significant digits), which
 * glibc's printf writes exactly, so a decimal and a double compare digit by digit. */
#include "codec/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DECIMAL_BIAS 6176
#define DOUBLE_DIGITS_MAX 767 /* the most significant digits a double's exact value has */

void decimal_split(lar_decimal128 d, decimal_parts *out)
{
    *out = (decimal_parts){.negative = d.high >> 63};
    if ((d.high & 0x7C00000000000000ull) == 0x7C00000000000000ull) { out->kind = DECIMAL_NAN; return; }
    if ((d.high & 0x7800000000000000ull) == 0x7800000000000000ull) { out->kind = DECIMAL_INFINITY; return; }
    out->kind = DECIMAL_FINITE;
    unsigned __int128 limit = 1;
    for (int i = 0; i < 34; i++) limit *= 10;
    if ((d.high & 0x6000000000000000ull) == 0x6000000000000000ull) {
        out->exponent = (int)((d.high >> 47) & 0x3FFF) - DECIMAL_BIAS; /* never canonical: zero */
    } else {
        out->coefficient = (unsigned __int128)(d.high & 0x1FFFFFFFFFFFFull) << 64 | d.low;
        out->exponent = (int)((d.high >> 49) & 0x3FFF) - DECIMAL_BIAS;
    }
    if (out->coefficient >= limit) out->coefficient = 0; /* non-canonical: zero, as IEEE 754 reads it */
    if (!out->coefficient) { /* every zero is one: 0E-3 is 0E0, -0 is 0 */
        out->negative = false;
        out->exponent = 0;
        return;
    }
    while (out->coefficient % 10 == 0) { /* one form per value: 1.50 is 15E-1 */
        out->coefficient /= 10;
        out->exponent++;
    }
}

/* The coefficient's decimal digits, most significant first; returns their count. */
static size_t coefficient_digits(unsigned __int128 c, char out[40])
{
    char reversed[40];
    size_t n = 0;
    do {
        reversed[n++] = (char)('0' + (int)(c % 10));
        c /= 10;
    } while (c);
    for (size_t i = 0; i < n; i++) out[i] = reversed[n - 1 - i];
    return n;
}

bool decimal_to_int64(const decimal_parts *x, int64_t *out)
{
    if (x->kind != DECIMAL_FINITE || x->exponent < 0 || x->exponent > 18) return false;
    unsigned __int128 magnitude = x->coefficient, limit = (unsigned __int128)INT64_MAX + x->negative;
    for (int i = 0; i < x->exponent && magnitude <= limit; i++) magnitude *= 10;
    if (magnitude > limit) return false;
    *out = x->negative ? (int64_t)(0 - (uint64_t)magnitude) : (int64_t)magnitude;
    return true;
}

double decimal_nearest_double(const decimal_parts *x)
{
    if (x->kind == DECIMAL_NAN) return __builtin_nan("");
    if (x->kind == DECIMAL_INFINITY) return x->negative ? -__builtin_inf() : __builtin_inf();
    char digits[40], text[64];
    size_t n = coefficient_digits(x->coefficient, digits);
    snprintf(text, sizeof text, "%s%.*se%d", x->negative ? "-" : "", (int)n, digits, x->exponent);
    return strtod(text, NULL); /* correctly rounded; beyond a double's range, an infinity or zero */
}

/* Compares two positive values given as significant digits (no trailing zeros) and the
 * power of ten of the first digit. */
static int compare_magnitudes(int xe, const char *xd, size_t xn, int ye, const char *yd, size_t yn)
{
    if (xe != ye) return xe < ye ? -1 : 1;
    size_t n = xn < yn ? xn : yn;
    int c = memcmp(xd, yd, n);
    if (c) return c < 0 ? -1 : 1;
    return (xn > yn) - (xn < yn);
}

int decimal_compare_double(const decimal_parts *x, double d)
{
    int sign = x->negative ? -1 : 1;
    if (d != d) return -1;                         /* not called with NaN; ordered below */
    if (__builtin_isinf(d)) return d > 0 ? -1 : 1;  /* x is finite */
    if (!x->coefficient) return d > 0 ? -1 : d < 0 ? 1 : 0;
    if (d == 0 || (d < 0) != x->negative) return sign;
    char exact[DOUBLE_DIGITS_MAX + 16], digits[DOUBLE_DIGITS_MAX], xdigits[40];
    snprintf(exact, sizeof exact, "%.*e", DOUBLE_DIGITS_MAX - 1, d < 0 ? -d : d); /* "d.ddd...e+XX", exact */
    char *e = strchr(exact, 'e');
    size_t n = 0;
    for (const char *p = exact; p < e; p++)
        if (*p != '.') digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0') n--;
    int de = atoi(e + 1);
    size_t xn = coefficient_digits(x->coefficient, xdigits);
    return sign * compare_magnitudes(x->exponent + (int)xn - 1, xdigits, xn, de, digits, n);
}

int64_t decimal_floor_minus(const decimal_parts *x, double d)
{
    unsigned __int128 power = 1, magnitude = x->coefficient;
    bool fraction = false;
    if (x->exponent >= 0) {
        for (int i = 0; i < x->exponent && magnitude < ((unsigned __int128)1 << 100); i++) magnitude *= 10;
    } else {
        for (int i = 0; i < -x->exponent && power < ((unsigned __int128)1 << 120); i++) power *= 10;
        fraction = magnitude % power != 0;
        magnitude /= power;
    }
    __int128 floor = x->negative ? -(__int128)magnitude - fraction : (__int128)magnitude;
    return (int64_t)(floor - (__int128)d);
}

size_t decimal_order_encode(const decimal_parts *x, uint8_t *out)
{
    char digits[40];
    size_t n = coefficient_digits(x->coefficient, digits);
    uint8_t flip = x->negative ? 0xFF : 0; /* a larger magnitude is a smaller negative */
    uint16_t exponent = (uint16_t)(x->exponent + (int)n - 1 + 0x8000);
    out[0] = x->negative ? 0 : 1;
    out[1] = (uint8_t)(exponent >> 8) ^ flip;
    out[2] = (uint8_t)exponent ^ flip;
    /* Digits as nibbles 1-10, then a 0 nibble: a shorter run of digits (1.5 against 1.55)
     * ends first and so sorts first. */
    size_t size = 3;
    for (size_t i = 0; i <= n; i += 2) {
        uint8_t high = i < n ? (uint8_t)(digits[i] - '0' + 1) : 0;
        uint8_t low = i + 1 < n ? (uint8_t)(digits[i + 1] - '0' + 1) : 0;
        out[size++] = (uint8_t)(high << 4 | low) ^ flip;
    }
    return size;
}
