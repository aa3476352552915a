// Numeric promotion as mongod's Value arithmetic and SafeNum do it.
#include "query/value/value_arithmetic.h"

#include <cmath>
#include <cstdint>

#include "query/value/value_decimal.h"

namespace quarry::query {
namespace {

int Rank(bson::Type t) {
  switch (t) {
    case bson::Type::kInt32:
      return 0;
    case bson::Type::kInt64:
      return 1;
    case bson::Type::kDouble:
      return 2;
    case bson::Type::kDecimal128:
      return 3;
    default:
      return 0;
  }
}

bool IntegerOp(ArithmeticOp op, std::int64_t a, std::int64_t b, std::int64_t* out) {
  switch (op) {
    case ArithmeticOp::kAdd:
      return !__builtin_add_overflow(a, b, out);
    case ArithmeticOp::kSubtract:
      return !__builtin_sub_overflow(a, b, out);
    case ArithmeticOp::kMultiply:
      return !__builtin_mul_overflow(a, b, out);
  }
  return false;
}

double DoubleOp(ArithmeticOp op, double a, double b) {
  switch (op) {
    case ArithmeticOp::kAdd:
      return a + b;
    case ArithmeticOp::kSubtract:
      return a - b;
    case ArithmeticOp::kMultiply:
      return a * b;
  }
  return 0;
}

}  // namespace

bson::Type WiderNumericType(bson::Type a, bson::Type b) { return Rank(a) >= Rank(b) ? a : b; }

Value ZeroOfType(bson::Type type) {
  switch (type) {
    case bson::Type::kInt64:
      return Value::Int64(0);
    case bson::Type::kDouble:
      return Value::Double(0);
    case bson::Type::kDecimal128:
      return Value::Decimal(DecimalFromInt64(0));
    default:
      return Value::Int32(0);
  }
}

Value Arithmetic(ArithmeticOp op, bson::ValueView a, bson::ValueView b, Int64Overflow overflow) {
  const bson::Type type = WiderNumericType(a.type(), b.type());
  switch (type) {
    case bson::Type::kDecimal128: {
      DecimalOp dop = op == ArithmeticOp::kAdd        ? DecimalOp::kAdd
                      : op == ArithmeticOp::kSubtract ? DecimalOp::kSubtract
                                                      : DecimalOp::kMultiply;
      return Value::Decimal(DecimalArithmetic(dop, DecimalFromNumber(a), DecimalFromNumber(b)));
    }
    case bson::Type::kDouble:
      return Value::Double(DoubleOp(op, a.AsDouble(), b.AsDouble()));
    case bson::Type::kInt32: {
      std::int64_t r = 0;
      IntegerOp(op, a.AsInt64(), b.AsInt64(), &r);  // two int32s never overflow int64
      return Value::Integer(r);
    }
    default: {
      std::int64_t r = 0;
      if (IntegerOp(op, a.AsInt64(), b.AsInt64(), &r)) return Value::Int64(r);
      if (overflow == Int64Overflow::kFail) return Value();
      return Value::Double(
          DoubleOp(op, static_cast<double>(a.AsInt64()), static_cast<double>(b.AsInt64())));
    }
  }
}

bool ToInt64Exact(bson::ValueView v, std::int64_t* out) {
  switch (v.type()) {
    case bson::Type::kInt32:
    case bson::Type::kInt64:
      *out = v.AsInt64();
      return true;
    case bson::Type::kDouble:
    case bson::Type::kDecimal128: {
      double d = v.type() == bson::Type::kDouble ? v.Double() : DecimalToDouble(v.Dec128());
      if (!std::isfinite(d) || std::trunc(d) != d) return false;
      if (d < -9.2233720368547758e18 || d >= 9.2233720368547758e18) return false;
      *out = static_cast<std::int64_t>(d);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace quarry::query
