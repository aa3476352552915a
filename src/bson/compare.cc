// MongoDB's value order (mongod's BSONElement::compareElements and woCompare).
#include "bson/compare.h"

#include <cmath>
#include <cstring>

namespace quarry::bson {
namespace {

int Sign(double d) { return d < 0 ? -1 : (d > 0 ? 1 : 0); }

template <typename T>
int Three(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int CompareBytes(std::string_view a, std::string_view b) {
  std::size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return Three(a.size(), b.size());
}

// Exact comparison of an int64 with a double, without rounding the integer.
int CompareInt64Double(std::int64_t i, double d) {
  if (std::isnan(d)) return 1;  // NaN sorts below every other number
  if (d >= 9.2233720368547758e18) return -1;
  if (d < -9.2233720368547758e18) return 1;
  auto truncated = static_cast<std::int64_t>(d);  // exact: |d| < 2^63
  if (i != truncated) return Three(i, truncated);
  return -Sign(d - static_cast<double>(truncated));
}

int CompareDoubles(double a, double b) {
  bool a_nan = std::isnan(a);
  bool b_nan = std::isnan(b);
  if (a_nan || b_nan) return Three(!a_nan, !b_nan);
  return Three(a, b);
}

int CompareNumbers(ValueView a, ValueView b) {
  Type ta = a.type();
  Type tb = b.type();
  bool a_int = ta == Type::kInt32 || ta == Type::kInt64;
  bool b_int = tb == Type::kInt32 || tb == Type::kInt64;
  if (a_int && b_int) return Three(a.AsInt64(), b.AsInt64());
  // Decimal128 compares through its double value: exact for the values applications store,
  // approximate beyond double's 15-17 significant digits.
  if (a_int && !b_int) return CompareInt64Double(a.AsInt64(), b.AsDouble());
  if (!a_int && b_int) return -CompareInt64Double(b.AsInt64(), a.AsDouble());
  return CompareDoubles(a.AsDouble(), b.AsDouble());
}

int CompareSameRank(ValueView a, ValueView b, const StringComparator* strings) {
  switch (a.type()) {
    case Type::kEod:
    case Type::kNull:
    case Type::kUndefined:
    case Type::kMinKey:
    case Type::kMaxKey:
      return 0;
    case Type::kDouble:
    case Type::kInt32:
    case Type::kInt64:
    case Type::kDecimal128:
      return CompareNumbers(a, b);
    case Type::kString:
    case Type::kSymbol:
      if (strings != nullptr) {
        const int c = strings->Compare(a.String(), b.String());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      return CompareBytes(a.String(), b.String());
    case Type::kCode:
      return CompareBytes(a.String(), b.String());
    case Type::kDocument:
    case Type::kArray:
      return CompareDocuments(a.Document(), b.Document(), strings);
    case Type::kBinary: {
      BinaryView x = a.Binary();
      BinaryView y = b.Binary();
      if (x.data.size() != y.data.size()) return Three(x.data.size(), y.data.size());
      if (x.subtype != y.subtype) return Three(x.subtype, y.subtype);
      return CompareBytes(x.data, y.data);
    }
    case Type::kObjectId:
      return CompareBytes({a.data(), 12}, {b.data(), 12});
    case Type::kBool:
      return Three(a.Bool(), b.Bool());
    case Type::kDate:
      return Three(a.Date(), b.Date());
    case Type::kTimestamp:
      return Three(a.Timestamp(), b.Timestamp());
    case Type::kRegex: {
      RegexView x = a.Regex();
      RegexView y = b.Regex();
      int c = CompareBytes(x.pattern, y.pattern);
      return c != 0 ? c : CompareBytes(x.options, y.options);
    }
    case Type::kDbPointer:
    case Type::kCodeWithScope:
      return CompareBytes({a.data(), a.size()}, {b.data(), b.size()});
  }
  return 0;
}

}  // namespace

int CompareValues(ValueView a, ValueView b, const StringComparator* strings) {
  int ra = CanonicalTypeRank(a.type());
  int rb = CanonicalTypeRank(b.type());
  if (ra != rb) return Three(ra, rb);
  return CompareSameRank(a, b, strings);
}

int CompareDocuments(DocumentView a, DocumentView b, const StringComparator* strings) {
  auto ia = a.begin();
  auto ib = b.begin();
  auto ea = a.end();
  auto eb = b.end();
  for (; ia != ea && ib != eb; ++ia, ++ib) {
    int c = Three(CanonicalTypeRank(ia->value.type()), CanonicalTypeRank(ib->value.type()));
    if (c != 0) return c;
    c = CompareBytes(ia->key, ib->key);
    if (c != 0) return c;
    c = CompareSameRank(ia->value, ib->value, strings);
    if (c != 0) return c;
  }
  if (ia == ea && ib == eb) return 0;
  return ia == ea ? -1 : 1;
}

}  // namespace quarry::bson
