// Arithmetic on BSON numbers with MongoDB's type promotion (int32 < int64 < double < decimal),
// shared by expressions ($add...), accumulators ($sum, $avg) and update operators ($inc, $mul),
// and the exact conversion of a number to int64 that counts and positions take.
#pragma once

#include <cstdint>

#include "bson/value.h"
#include "query/value/value.h"

namespace quarry::query {

enum class ArithmeticOp { kAdd, kSubtract, kMultiply };

// How an int64 result that does not fit is handled.
enum class Int64Overflow {
  kToDouble,  // aggregation: the result becomes a double
  kFail,      // update operators: the caller reports an error
};

// a op b for two numbers. The result has the wider type of the two; an int32 result that
// overflows becomes int64. Returns a missing Value when `overflow` is kFail and an int64 result
// overflowed. REQUIRES: a and b are numbers.
Value Arithmetic(ArithmeticOp op, bson::ValueView a, bson::ValueView b,
                 Int64Overflow overflow = Int64Overflow::kToDouble);

// The "widest" numeric type of a and b in MongoDB's promotion order.
bson::Type WiderNumericType(bson::Type a, bson::Type b);

// A zero of `type` (int32, int64, double or decimal).
Value ZeroOfType(bson::Type type);

// Sets `*out` and returns true when `v` is a whole number that fits int64: an int, a long, or an
// integral double or decimal. False for other values, leaving `*out` alone.
bool ToInt64Exact(bson::ValueView v, std::int64_t* out);

}  // namespace quarry::query
