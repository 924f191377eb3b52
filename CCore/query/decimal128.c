/* decimal128 comparison and arithmetic on the BID encoding, in 128-bit integers.
 * The same rules as Sources/Larder/Decimal128.swift: results round to 34 digits,
 * half to even; an exponent beyond the range clamps or overflows to infinity. */
#include "query/decimal128.h"


#include <stdio.h>
#include <stdlib.h>

__extension__ typedef unsigned __int128 u128;

#define MAX_DIGITS 34
#define MIN_EXPONENT (-6176)
#define MAX_EXPONENT 6111
#define EXPONENT_BIAS 6176
#define SIGN_BIT ((uint64_t)1 << 63)
#define INFINITY_BITS 0x7800000000000000ull
#define NAN_BITS 0x7C00000000000000ull
#define LARGE_FORM_BITS 0x6000000000000000ull

typedef enum { DEC_FINITE, DEC_INFINITE, DEC_NAN } dec_kind;

/* (-1)^negative × coefficient × 10^exponent */
typedef struct finite {
    bool negative;
    u128 coefficient;
    int exponent;
} finite;

static u128 power_of_ten(int n) /* 0...38 */
{
    u128 p = 1;
    while (n-- > 0) p *= 10;
    return p;
}

static u128 max_coefficient(void)
{
    return power_of_ten(MAX_DIGITS) - 1;
}

/* The number of decimal digits of value, counting zero as one digit. */
static int digit_count(u128 value)
{
    int digits = 1;
    while (value >= 10) {
        value /= 10;
        digits++;
    }
    return digits;
}

static dec_kind parts(lar_decimal128 d, finite *out)
{
    out->negative = (d.high & SIGN_BIT) != 0;
    if ((d.high & NAN_BITS) == NAN_BITS) return DEC_NAN;
    if ((d.high & INFINITY_BITS) == INFINITY_BITS) return DEC_INFINITE;
    if ((d.high & LARGE_FORM_BITS) == LARGE_FORM_BITS) {
        /* The implied coefficient is at least 2^113, above 10^34 - 1: the spec reads it as zero. */
        out->exponent = (int)(d.high >> 47 & 0x3FFF) - EXPONENT_BIAS;
        out->coefficient = 0;
        return DEC_FINITE;
    }
    out->exponent = (int)(d.high >> 49 & 0x3FFF) - EXPONENT_BIAS;
    u128 coefficient = (u128)(d.high & 0x1FFFFFFFFFFFFull) << 64 | d.low;
    out->coefficient = coefficient > max_coefficient() ? 0 : coefficient;
    return DEC_FINITE;
}

static lar_decimal128 encode(bool negative, u128 coefficient, int exponent)
{
    uint64_t biased = (uint64_t)(exponent + EXPONENT_BIAS);
    return (lar_decimal128){(uint64_t)coefficient,
                            (negative ? SIGN_BIT : 0) | biased << 49 | (uint64_t)(coefficient >> 64)};
}

static lar_decimal128 infinity(bool negative)
{
    return (lar_decimal128){0, INFINITY_BITS | (negative ? SIGN_BIT : 0)};
}

static lar_decimal128 nan_value(void)
{
    return (lar_decimal128){0, NAN_BITS};
}

/* Rounds to 34 digits and the exponent range, half to even. sticky: the exact value
 * lies a little beyond coefficient (nonzero digits below it were dropped). */
static lar_decimal128 rounded(bool negative, u128 coefficient, int exponent, bool sticky)
{
    int drop = digit_count(coefficient) - MAX_DIGITS;
    if (MIN_EXPONENT - exponent > drop) drop = MIN_EXPONENT - exponent;
    if (drop < 0) drop = 0;
    u128 result = coefficient;
    exponent += drop;
    if (drop > 38) {
        result = 0; /* below half a unit in the last place, since coefficient < 10^39 */
    } else if (drop > 0) {
        u128 divisor = power_of_ten(drop);
        u128 quotient = coefficient / divisor, remainder = coefficient % divisor, half = divisor / 2;
        bool up = remainder > half || (remainder == half && (sticky || (quotient & 1)));
        result = up ? quotient + 1 : quotient;
    }
    if (result > max_coefficient()) { /* rounding carried to 10^34 */
        result /= 10;
        exponent += 1;
    }
    if (exponent > MAX_EXPONENT) {
        int pad = exponent - MAX_EXPONENT;
        if (result == 0) {
            exponent = MAX_EXPONENT;
        } else if (digit_count(result) + pad <= MAX_DIGITS) {
            result *= power_of_ten(pad);
            exponent = MAX_EXPONENT;
        } else {
            return infinity(negative);
        }
    }
    return encode(negative, result, exponent);
}

bool decimal_is_nan(lar_decimal128 d)
{
    return (d.high & NAN_BITS) == NAN_BITS;
}

lar_decimal128 decimal_zero(void)
{
    return encode(false, 0, 0);
}

lar_decimal128 decimal_from_int(int64_t value)
{
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    return encode(value < 0, magnitude, 0);
}

/* value rounded to `digits` significant digits (half to even, from its exact binary value),
 * trailing zeros dropped. */
static lar_decimal128 from_binary(double value, int digits)
{
    if (value != value) return nan_value();
    if (value == 1.0 / 0.0 || value == -1.0 / 0.0) return infinity(value < 0);
    /* "%.14e" prints 15 significant digits: "-1.00000000000000e+00". */
    char text[40];
    snprintf(text, sizeof text, "%.*e", digits - 1, value);
    const char *p = text;
    bool negative = *p == '-';
    if (negative) p++;
    u128 coefficient = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') coefficient = coefficient * 10 + (unsigned)(*p - '0');
    int exponent = (*p == 'e' ? atoi(p + 1) : 0) - (digits - 1);
    while (coefficient != 0 && coefficient % 10 == 0) {
        coefficient /= 10;
        exponent++;
    }
    if (coefficient == 0) exponent = 0;
    return rounded(negative, coefficient, exponent, false);
}

lar_decimal128 decimal_from_double(double value)
{
    return from_binary(value, 15);
}

lar_decimal128 decimal_from_float(float value)
{
    return from_binary((double)value, 7);
}

lar_decimal128 decimal_of_number(const lar_value *v)
{
    switch (v->type) {
    case LAR_TYPE_INT: return decimal_from_int(v->as.integer);
    case LAR_TYPE_FLOAT: return decimal_from_float(v->as.float32);
    case LAR_TYPE_DOUBLE: return decimal_from_double(v->as.float64);
    default: return v->as.decimal128;
    }
}

/* value / 10^count, and whether nonzero digits were dropped. */
static u128 shifted_right(u128 value, int count, bool *sticky)
{
    *sticky = false;
    if (count == 0) return value;
    if (count > 38) {
        *sticky = value != 0;
        return 0;
    }
    u128 divisor = power_of_ten(count);
    *sticky = value % divisor != 0;
    return value / divisor;
}

static lar_decimal128 add_finite(finite a, finite b)
{
    finite big = a.exponent >= b.exponent ? a : b, small = a.exponent >= b.exponent ? b : a;
    int gap = big.exponent - small.exponent;
    /* Align the operand with the larger exponent down to the other's, as far as 38 digits allow;
     * what lies below that of the other is far below the result's 34th digit: keep only
     * whether it was nonzero. */
    int shift = big.coefficient == 0 ? gap : (gap < 38 - digit_count(big.coefficient) ? gap : 38 - digit_count(big.coefficient));
    u128 scaled = big.coefficient == 0 ? 0 : big.coefficient * power_of_ten(shift);
    bool sticky;
    u128 reduced = shifted_right(small.coefficient, gap - shift, &sticky);
    int exponent = big.exponent - shift;
    if (big.negative == small.negative) return rounded(big.negative, scaled + reduced, exponent, sticky);
    if (scaled > reduced) /* with sticky set, the exact difference is just below scaled - reduced */
        return rounded(big.negative, scaled - reduced - (sticky ? 1 : 0), exponent, sticky);
    /* An exact zero difference is positive when rounding to nearest. */
    return rounded(scaled < reduced && small.negative, reduced - scaled, exponent, false);
}

lar_decimal128 decimal_add(lar_decimal128 a, lar_decimal128 b)
{
    finite x, y;
    dec_kind ka = parts(a, &x), kb = parts(b, &y);
    if (ka == DEC_NAN || kb == DEC_NAN) return nan_value();
    if (ka == DEC_INFINITE && kb == DEC_INFINITE) return x.negative == y.negative ? a : nan_value();
    if (ka == DEC_INFINITE) return a;
    if (kb == DEC_INFINITE) return b;
    return add_finite(x, y);
}

lar_decimal128 decimal_divide(lar_decimal128 a, lar_decimal128 b)
{
    finite x, y;
    dec_kind ka = parts(a, &x), kb = parts(b, &y);
    bool negative = x.negative != y.negative;
    if (ka == DEC_NAN || kb == DEC_NAN || (ka == DEC_INFINITE && kb == DEC_INFINITE)) return nan_value();
    if (ka == DEC_INFINITE) return infinity(negative);
    if (kb == DEC_INFINITE) return encode(negative, 0, MIN_EXPONENT);
    if (y.coefficient == 0) return x.coefficient == 0 ? nan_value() : infinity(negative);
    /* Long division from the ideal exponent down, stopping when exact or at 35 digits. */
    u128 quotient = x.coefficient / y.coefficient, remainder = x.coefficient % y.coefficient;
    int exponent = x.exponent - y.exponent;
    while (remainder != 0 && quotient <= max_coefficient()) {
        u128 wide = remainder * 10;
        quotient = quotient * 10 + wide / y.coefficient;
        remainder = wide % y.coefficient;
        exponent--;
    }
    return rounded(negative, quotient, exponent, remainder != 0);
}

/* Compares nonzero magnitudes: by the exponent of the leading digit, then digit by digit. */
static int compare_magnitudes(finite a, finite b)
{
    int a_leading = a.exponent + digit_count(a.coefficient) - 1;
    int b_leading = b.exponent + digit_count(b.coefficient) - 1;
    if (a_leading != b_leading) return a_leading < b_leading ? -1 : 1;
    /* Equal leading exponents leave the exponents at most 33 apart. */
    u128 left = a.exponent > b.exponent ? a.coefficient * power_of_ten(a.exponent - b.exponent) : a.coefficient;
    u128 right = b.exponent > a.exponent ? b.coefficient * power_of_ten(b.exponent - a.exponent) : b.coefficient;
    return left < right ? -1 : left > right;
}

int decimal_compare(lar_decimal128 a, lar_decimal128 b)
{
    finite x, y;
    dec_kind ka = parts(a, &x), kb = parts(b, &y);
    if (ka == DEC_NAN && kb == DEC_NAN) /* by their bits, as realm-core, to stay a total order */
        return a.high != b.high ? (a.high < b.high ? -1 : 1) : (a.low < b.low ? -1 : a.low > b.low);
    if (ka == DEC_NAN || kb == DEC_NAN) return ka == DEC_NAN ? -1 : 1;
    /* -infinity, the finite values, +infinity */
    int ca = ka == DEC_INFINITE ? (x.negative ? -1 : 1) : 0, cb = kb == DEC_INFINITE ? (y.negative ? -1 : 1) : 0;
    if (ca != cb) return ca < cb ? -1 : 1;
    if (ca) return 0;
    int sa = x.coefficient == 0 ? 0 : x.negative ? -1 : 1;
    int sb = y.coefficient == 0 ? 0 : y.negative ? -1 : 1;
    if (sa != sb || sa == 0) return sa < sb ? -1 : sa > sb;
    return sa * compare_magnitudes(x, y);
}

double decimal_to_double(lar_decimal128 d)
{
    finite p;
    dec_kind kind = parts(d, &p);
    if (kind == DEC_NAN) return __builtin_nan("");
    double v = kind == DEC_INFINITE ? __builtin_inf() : (double)p.coefficient;
    for (int e = p.exponent; e > 0 && v != __builtin_inf() && v != 0; e--) v *= 10; /* no libm: a loop */
    for (int e = p.exponent; e < 0 && v != 0; e++) v /= 10;
    return p.negative ? -v : v;
}
