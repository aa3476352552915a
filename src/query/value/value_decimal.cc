// Decimal128 in BID encoding: sign bit, 14-bit biased exponent, 113-bit coefficient (the
// "11" combination-field form only encodes coefficients above 2^113, which are never
// canonical, so it is read as zero as the standard says).
#include "query/value/value_decimal.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace quarry::query {
namespace {

using UInt128 = unsigned __int128;

constexpr int kExponentBias = 6176;
constexpr int kMinExponent = -6176;
constexpr int kMaxExponent = 6111;
constexpr std::uint64_t kInfinityHigh = 0x7800000000000000ULL;
constexpr std::uint64_t kNaNHigh = 0x7C00000000000000ULL;
constexpr std::uint64_t kSignBit = 0x8000000000000000ULL;

enum class Kind { kFinite, kInfinity, kNaN };

struct Parts {
  Kind kind = Kind::kFinite;
  bool negative = false;
  UInt128 coefficient = 0;
  int exponent = 0;
};

UInt128 MaxCoefficient() {  // 10^34 - 1
  UInt128 v = 1;
  for (int i = 0; i < 34; ++i) v *= 10;
  return v - 1;
}

Parts Decode(bson::Decimal128 d) {
  Parts p;
  p.negative = (d.high & kSignBit) != 0;
  if ((d.high & 0x7C00000000000000ULL) == kNaNHigh) {
    p.kind = Kind::kNaN;
    return p;
  }
  if ((d.high & 0x7C00000000000000ULL) == kInfinityHigh) {
    p.kind = Kind::kInfinity;
    return p;
  }
  if ((d.high & 0x6000000000000000ULL) == 0x6000000000000000ULL) {
    // Non-canonical large-coefficient form: value is zero with that exponent.
    p.exponent = static_cast<int>((d.high >> 47) & 0x3FFF) - kExponentBias;
    return p;
  }
  p.exponent = static_cast<int>((d.high >> 49) & 0x3FFF) - kExponentBias;
  p.coefficient = (static_cast<UInt128>(d.high & 0x1FFFFFFFFFFFFULL) << 64) | d.low;
  return p;
}

bson::Decimal128 Encode(const Parts& p) {
  bson::Decimal128 d;
  std::uint64_t sign = p.negative ? kSignBit : 0;
  if (p.kind == Kind::kNaN) {
    d.high = kNaNHigh;
    return d;
  }
  if (p.kind == Kind::kInfinity) {
    d.high = kInfinityHigh | sign;
    return d;
  }
  UInt128 coefficient = p.coefficient;
  int exponent = p.exponent;
  // Bring the exponent into range: drop digits when too small, pad when too large.
  while (exponent < kMinExponent && coefficient != 0) {
    coefficient /= 10;
    ++exponent;
  }
  if (exponent < kMinExponent) exponent = kMinExponent;
  while (exponent > kMaxExponent && coefficient <= MaxCoefficient() / 10 && coefficient != 0) {
    coefficient *= 10;
    --exponent;
  }
  if (exponent > kMaxExponent) {
    if (coefficient == 0) {
      exponent = kMaxExponent;
    } else {
      d.high = kInfinityHigh | sign;
      return d;
    }
  }
  d.low = static_cast<std::uint64_t>(coefficient);
  d.high = sign | (static_cast<std::uint64_t>(exponent + kExponentBias) << 49) |
           static_cast<std::uint64_t>(coefficient >> 64);
  return d;
}

std::string CoefficientDigits(UInt128 c) {
  if (c == 0) return "0";
  std::string s;
  while (c != 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(c % 10)));
    c /= 10;
  }
  return s;
}

int DigitCount(UInt128 c) {
  int n = 1;
  while (c >= 10) {
    c /= 10;
    ++n;
  }
  return n;
}

// Rounds `p` (half to even) until its coefficient has at most 34 digits.
void Normalize(Parts* p) {
  bool round_up_pending = false;
  int dropped_digit = 0;
  bool sticky = false;
  while (p->coefficient > MaxCoefficient()) {
    if (dropped_digit != 0) sticky = true;
    dropped_digit = static_cast<int>(p->coefficient % 10);
    p->coefficient /= 10;
    ++p->exponent;
    round_up_pending = true;
  }
  if (round_up_pending) {
    bool up = dropped_digit > 5 || (dropped_digit == 5 && (sticky || (p->coefficient % 2) == 1));
    if (up) {
      ++p->coefficient;
      if (p->coefficient > MaxCoefficient()) {
        p->coefficient /= 10;
        ++p->exponent;
      }
    }
  }
}

bool MultiplyWouldOverflow(UInt128 a, UInt128 b) {
  if (a == 0 || b == 0) return false;
  return a > (~static_cast<UInt128>(0)) / b;
}

// Multiplies by 10^n; false on 128-bit overflow.
bool ScaleUp(UInt128* c, int n) {
  for (int i = 0; i < n; ++i) {
    if (*c > (~static_cast<UInt128>(0)) / 10) return false;
    *c *= 10;
  }
  return true;
}

}  // namespace

bson::Decimal128 DecimalFromInt64(std::int64_t n) {
  Parts p;
  p.negative = n < 0;
  p.coefficient = n < 0 ? static_cast<UInt128>(-(n + 1)) + 1 : static_cast<UInt128>(n);
  return Encode(p);
}

bson::Decimal128 DecimalFromDouble(double d) {
  Parts p;
  if (std::isnan(d)) {
    p.kind = Kind::kNaN;
    return Encode(p);
  }
  p.negative = std::signbit(d);
  if (std::isinf(d)) {
    p.kind = Kind::kInfinity;
    return Encode(p);
  }
  if (d == 0) return Encode(p);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.14e", std::fabs(d));  // d.dddddddddddddde[+-]XX
  UInt128 coefficient = 0;
  const char* c = buf;
  for (; *c != 'e'; ++c) {
    if (*c >= '0' && *c <= '9') coefficient = coefficient * 10 + static_cast<UInt128>(*c - '0');
  }
  p.coefficient = coefficient;
  p.exponent = std::atoi(c + 1) - 14;
  return Encode(p);
}

bson::Decimal128 DecimalFromNumber(bson::ValueView number) {
  switch (number.type()) {
    case bson::Type::kDecimal128:
      return number.Dec128();
    case bson::Type::kInt32:
    case bson::Type::kInt64:
      return DecimalFromInt64(number.AsInt64());
    default:
      return DecimalFromDouble(number.AsDouble());
  }
}

bool DecimalFromString(std::string_view text, bson::Decimal128* out) {
  Parts p;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    p.negative = text[i] == '-';
    ++i;
  }
  std::string rest;
  for (std::size_t j = i; j < text.size(); ++j) {
    rest.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[j]))));
  }
  if (rest == "inf" || rest == "infinity") {
    p.kind = Kind::kInfinity;
    *out = Encode(p);
    return true;
  }
  if (rest == "nan") {
    p.kind = Kind::kNaN;
    p.negative = false;
    *out = Encode(p);
    return true;
  }
  bool any_digit = false;
  bool seen_point = false;
  int fraction_digits = 0;
  int significant = 0;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.') {
      if (seen_point) return false;
      seen_point = true;
      continue;
    }
    if (ch < '0' || ch > '9') break;
    any_digit = true;
    if (p.coefficient != 0 || ch != '0') ++significant;
    if (significant > 34) return false;
    p.coefficient = p.coefficient * 10 + static_cast<UInt128>(ch - '0');
    if (seen_point) ++fraction_digits;
  }
  if (!any_digit) return false;
  int exponent = 0;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return false;
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    if (i >= text.size()) return false;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      exponent = exponent * 10 + (text[i] - '0');
      if (exponent > 100000) return false;
    }
    if (exp_negative) exponent = -exponent;
  }
  p.exponent = exponent - fraction_digits;
  *out = Encode(p);
  return true;
}

std::string DecimalToString(bson::Decimal128 d) {
  Parts p = Decode(d);
  std::string sign = p.negative ? "-" : "";
  if (p.kind == Kind::kNaN) return "NaN";
  if (p.kind == Kind::kInfinity) return sign + "Infinity";
  std::string digits = CoefficientDigits(p.coefficient);
  const int length = static_cast<int>(digits.size());
  const int adjusted = p.exponent + length - 1;
  if (p.exponent <= 0 && adjusted >= -6) {
    if (p.exponent == 0) return sign + digits;
    const int point = length + p.exponent;  // digits before the point
    if (point > 0) return sign + digits.substr(0, point) + "." + digits.substr(point);
    return sign + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  }
  std::string out = sign + digits.substr(0, 1);
  if (length > 1) out += "." + digits.substr(1);
  out += "E";
  out += adjusted >= 0 ? "+" : "-";
  out += std::to_string(std::abs(adjusted));
  return out;
}

double DecimalToDouble(bson::Decimal128 d) {
  Parts p = Decode(d);
  if (p.kind == Kind::kNaN) return std::numeric_limits<double>::quiet_NaN();
  if (p.kind == Kind::kInfinity) {
    return p.negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
  }
  return std::strtod(DecimalToString(d).c_str(), nullptr);
}

bool DecimalIsNaN(bson::Decimal128 d) { return Decode(d).kind == Kind::kNaN; }

bool DecimalIsZero(bson::Decimal128 d) {
  Parts p = Decode(d);
  return p.kind == Kind::kFinite && p.coefficient == 0;
}

bson::Decimal128 DecimalRoundToPlace(bson::Decimal128 d, int place, bool truncate) {
  Parts p = Decode(d);
  if (p.kind != Kind::kFinite || p.exponent >= -place) return d;
  const int drop = -place - p.exponent;
  if (drop > 40) {
    p.coefficient = 0;
    p.exponent = -place;
    return Encode(p);
  }
  UInt128 divisor = 1;
  for (int i = 0; i < drop; ++i) divisor *= 10;
  UInt128 quotient = p.coefficient / divisor;
  UInt128 remainder = p.coefficient % divisor;
  if (!truncate) {
    UInt128 half = divisor / 2;
    if (remainder > half || (remainder == half && (quotient % 2) == 1)) ++quotient;
  }
  p.coefficient = quotient;
  p.exponent = -place;
  if (p.coefficient == 0) p.negative = false;
  return Encode(p);
}

bson::Decimal128 DecimalArithmetic(DecimalOp op, bson::Decimal128 a, bson::Decimal128 b) {
  Parts x = Decode(a);
  Parts y = Decode(b);
  auto via_double = [&]() {
    double dx = DecimalToDouble(a);
    double dy = DecimalToDouble(b);
    double r = 0;
    switch (op) {
      case DecimalOp::kAdd:
        r = dx + dy;
        break;
      case DecimalOp::kSubtract:
        r = dx - dy;
        break;
      case DecimalOp::kMultiply:
        r = dx * dy;
        break;
      case DecimalOp::kDivide:
        r = dx / dy;
        break;
    }
    return DecimalFromDouble(r);
  };
  if (x.kind != Kind::kFinite || y.kind != Kind::kFinite) return via_double();
  Parts r;
  switch (op) {
    case DecimalOp::kSubtract:
      y.negative = !y.negative;
      [[fallthrough]];
    case DecimalOp::kAdd: {
      // Align to the smaller exponent, then add signed coefficients.
      Parts* hi = x.exponent >= y.exponent ? &x : &y;
      Parts* lo = hi == &x ? &y : &x;
      UInt128 hc = hi->coefficient;
      if (!ScaleUp(&hc, hi->exponent - lo->exponent)) return via_double();
      r.exponent = lo->exponent;
      if (hi->negative == lo->negative) {
        if (hc > (~static_cast<UInt128>(0)) - lo->coefficient) return via_double();
        r.coefficient = hc + lo->coefficient;
        r.negative = hi->negative;
      } else if (hc >= lo->coefficient) {
        r.coefficient = hc - lo->coefficient;
        r.negative = hi->negative;
      } else {
        r.coefficient = lo->coefficient - hc;
        r.negative = lo->negative;
      }
      if (r.coefficient == 0) r.negative = false;
      break;
    }
    case DecimalOp::kMultiply:
      if (MultiplyWouldOverflow(x.coefficient, y.coefficient)) return via_double();
      r.coefficient = x.coefficient * y.coefficient;
      r.exponent = x.exponent + y.exponent;
      r.negative = x.negative != y.negative;
      break;
    case DecimalOp::kDivide: {
      if (y.coefficient == 0) return via_double();
      // Exact when the quotient terminates within the precision; otherwise double precision.
      UInt128 num = x.coefficient;
      int exponent = x.exponent - y.exponent;
      while (num % y.coefficient != 0 && DigitCount(num) < 36) {
        if (!ScaleUp(&num, 1)) break;
        --exponent;
      }
      if (num % y.coefficient != 0) return via_double();
      r.coefficient = num / y.coefficient;
      r.exponent = exponent;
      r.negative = (x.negative != y.negative) && r.coefficient != 0;
      break;
    }
  }
  Normalize(&r);
  return Encode(r);
}

}  // namespace quarry::query
