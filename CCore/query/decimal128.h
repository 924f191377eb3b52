/* Layer query: the decimal128 arithmetic sorting and aggregates need (IEEE 754
 * decimal128 in its binary integer decimal encoding, as realm-core stores it):
 * comparison by value, exact sums rounded to 34 digits half to even, division,
 * and the conversions realm-core makes when it compares or adds other numbers. */
#ifndef LARDER_DECIMAL128_H
#define LARDER_DECIMAL128_H

#include "larder.h"

#include <stdbool.h>

bool decimal_is_nan(lar_decimal128 d);
/* -1, 0 or 1 by numeric value (1.0 == 1.00, -0 == 0). A NaN sorts before every
 * other value, as realm-core's Decimal128::compare has it; two NaNs by their bits. */
int decimal_compare(lar_decimal128 a, lar_decimal128 b);
lar_decimal128 decimal_from_int(int64_t value);
/* The value of realm-core's Decimal128(double): the double rounded to 15 significant
 * digits (0.1 is exactly 0.1), here with trailing zeros dropped (realm-core keeps 15
 * digits: the same number, another exponent). NaN and infinities keep their kind. */
lar_decimal128 decimal_from_double(double value);
/* The same for a float, which realm-core rounds to 7 significant digits (0.1f is 0.1). */
lar_decimal128 decimal_from_float(float value);
/* An int, float, double or decimal128 value as realm-core converts it to a decimal128. */
lar_decimal128 decimal_of_number(const lar_value *v);
lar_decimal128 decimal_zero(void);
lar_decimal128 decimal_add(lar_decimal128 a, lar_decimal128 b);
lar_decimal128 decimal_divide(lar_decimal128 a, lar_decimal128 b);
/* The nearest double (NaN and infinities keep their kind). */
double decimal_to_double(lar_decimal128 d);

#endif
