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
 * other value, as realm-core's Decimal128::compare has it; two NaNs are equal. */
int decimal_compare(lar_decimal128 a, lar_decimal128 b);
lar_decimal128 decimal_from_int(int64_t value);
/* As realm-core's Decimal128(double): the value rounded to 15 significant digits,
 * trailing zeros dropped (0.1 is exactly 0.1). NaN and infinities keep their kind. */
lar_decimal128 decimal_from_double(double value);
lar_decimal128 decimal_zero(void);
lar_decimal128 decimal_add(lar_decimal128 a, lar_decimal128 b);
lar_decimal128 decimal_divide(lar_decimal128 a, lar_decimal128 b);

#endif
