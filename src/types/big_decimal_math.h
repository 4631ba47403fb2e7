// Transcendental functions of BigDecimal: exp, ln and integral powers, each
// rounded half away from zero at a requested scale. They carry enough guard
// digits through their reductions that the result is the exact value
// rounded, as PostgreSQL's numeric.c computes it to the same scale (its
// callers choose the scale by PostgreSQL's rules).
#pragma once

#include <cstdint>

#include "types/big_decimal.h"

namespace sluice {

// e^x at `scale`. REQUIRES: |x| <= 7000 (larger results overflow numeric's
// format; callers check first).
BigDecimal BigExp(const BigDecimal& x, int scale);

// ln(x) at `scale`. REQUIRES: x > 0.
BigDecimal BigLn(const BigDecimal& x, int scale);

// b^n at `scale`. REQUIRES: b != 0 or n >= 0; |result| within numeric's
// format (callers check first).
BigDecimal BigPowInt(const BigDecimal& b, int64_t n, int scale);

// log10 of |x|, roughly (as a double). REQUIRES: x != 0.
double BigLog10(const BigDecimal& x);

}  // namespace sluice
