// Decimal128 values (IEEE 754-2008, BID encoding, as BSON stores them): conversions and the
// exact arithmetic that $add/$subtract/$multiply/$inc/$sum need.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bson/value.h"

namespace quarry::query {

bson::Decimal128 DecimalFromInt64(std::int64_t n);
// 15 significant digits, as mongod converts doubles (0.1 -> 0.100000000000000).
bson::Decimal128 DecimalFromDouble(double d);
// Any number type.
bson::Decimal128 DecimalFromNumber(bson::ValueView number);
// Parses "1.5", "-2E+3", "Infinity", "NaN"...; false for other text or more than 34 digits of
// precision.
bool DecimalFromString(std::string_view text, bson::Decimal128* out);
// The canonical string ("1.5", "1.0E+5", "NaN"), as $toString and Extended JSON print it.
std::string DecimalToString(bson::Decimal128 d);
double DecimalToDouble(bson::Decimal128 d);
bool DecimalIsNaN(bson::Decimal128 d);
bool DecimalIsZero(bson::Decimal128 d);

// Rounds to `place` digits after the point (negative: before it): half to even, or toward
// zero when `truncate`.
bson::Decimal128 DecimalRoundToPlace(bson::Decimal128 d, int place, bool truncate);

enum class DecimalOp { kAdd, kSubtract, kMultiply, kDivide };
// a op b. Exact while the coefficient fits in 34 digits; otherwise (and for most divisions)
// computed in double precision and rounded to 15 digits.
bson::Decimal128 DecimalArithmetic(DecimalOp op, bson::Decimal128 a, bson::Decimal128 b);

}  // namespace quarry::query
