// Order-preserving key encoding. The byte layout is persisted (docs/formats/key-encoding.md):
// never renumber a tag.
#include "storage/key_encoding.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/endian.h"

namespace quarry::storage {
namespace {

// One tag per comparison rank of bson::CanonicalTypeRank, in the same order. Tags leave room
// between them for types MongoDB may add, and all are above kTagEnd, which closes documents and
// arrays so that a shorter document sorts first.
enum Tag : std::uint8_t {
  kTagEnd = 0x00,
  kTagMinKey = 0x05,
  kTagUndefined = 0x0A,  // also "missing"
  kTagNull = 0x0F,
  kTagNumber = 0x14,
  kTagString = 0x1E,  // string and symbol
  kTagDocument = 0x28,
  kTagArray = 0x32,
  kTagBinary = 0x3C,
  kTagObjectId = 0x46,
  kTagBool = 0x50,
  kTagDate = 0x5A,
  kTagTimestamp = 0x64,
  kTagRegex = 0x6E,
  kTagDbPointer = 0x78,
  kTagCode = 0x82,
  kTagCodeWithScope = 0x8C,
  kTagMaxKey = 0xF0,
};

// The first byte of a number's body: its class, in numeric order.
enum NumberClass : std::uint8_t {
  kNumNaN = 0x01,  // CompareValues puts NaN below every other number
  kNumNegativeInfinity = 0x02,
  kNumNegative = 0x03,
  kNumZero = 0x04,  // +0, -0 and integer 0
  kNumPositive = 0x05,
  kNumPositiveInfinity = 0x06,
};

// Binary exponents of finite non-zero doubles lie in [-1074, 1023], of int64 in [0, 63].
constexpr int kExponentBias = 1100;

Tag TagOf(bson::Type type) {
  switch (type) {
    case bson::Type::kMinKey:
      return kTagMinKey;
    case bson::Type::kEod:
    case bson::Type::kUndefined:
      return kTagUndefined;
    case bson::Type::kNull:
      return kTagNull;
    case bson::Type::kDouble:
    case bson::Type::kInt32:
    case bson::Type::kInt64:
    case bson::Type::kDecimal128:
      return kTagNumber;
    case bson::Type::kString:
    case bson::Type::kSymbol:
      return kTagString;
    case bson::Type::kDocument:
      return kTagDocument;
    case bson::Type::kArray:
      return kTagArray;
    case bson::Type::kBinary:
      return kTagBinary;
    case bson::Type::kObjectId:
      return kTagObjectId;
    case bson::Type::kBool:
      return kTagBool;
    case bson::Type::kDate:
      return kTagDate;
    case bson::Type::kTimestamp:
      return kTagTimestamp;
    case bson::Type::kRegex:
      return kTagRegex;
    case bson::Type::kDbPointer:
      return kTagDbPointer;
    case bson::Type::kCode:
      return kTagCode;
    case bson::Type::kCodeWithScope:
      return kTagCodeWithScope;
    case bson::Type::kMaxKey:
      return kTagMaxKey;
  }
  return kTagUndefined;
}

// A byte string that may hold NULs: 0x00 becomes 0x00 0xFF and the end is 0x00 0x00, so the
// order is memcmp's with a shorter prefix first (bson's CompareBytes).
void AppendEscapedBytes(std::string_view bytes, std::string* out) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xFF');
  }
  out->push_back('\0');
  out->push_back('\0');
}

// A C string (no NULs by construction): its bytes and one 0x00.
void AppendCString(std::string_view s, std::string* out) {
  out->append(s);
  out->push_back('\0');
}

// |value| = magnitude * 2^shift, magnitude > 0. Writes the class, then the binary exponent of the
// leading one and the 64 bits that follow it, so that equal numbers of any type get equal bytes
// and larger magnitudes larger bytes; negatives are complemented to reverse that.
void AppendFiniteNonZero(bool negative, std::uint64_t magnitude, int shift, std::string* out) {
  int leading_zeros = std::countl_zero(magnitude);
  int top_bit = 63 - leading_zeros;
  std::uint64_t fraction = top_bit == 0 ? 0 : magnitude << (leading_zeros + 1);
  auto exponent = static_cast<std::uint16_t>(top_bit + shift + kExponentBias);
  if (negative) {
    exponent = static_cast<std::uint16_t>(~exponent);
    fraction = ~fraction;
  }
  out->push_back(static_cast<char>(negative ? kNumNegative : kNumPositive));
  AppendBigEndian(exponent, 2, out);
  AppendBigEndian(fraction, 8, out);
}

void AppendInt64Body(std::int64_t v, std::string* out) {
  if (v == 0) {
    out->push_back(static_cast<char>(kNumZero));
    return;
  }
  bool negative = v < 0;
  // Unsigned negation is exact for INT64_MIN too.
  std::uint64_t magnitude =
      negative ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  AppendFiniteNonZero(negative, magnitude, 0, out);
}

void AppendDoubleBody(double d, std::string* out) {
  if (std::isnan(d)) {
    out->push_back(static_cast<char>(kNumNaN));
    return;
  }
  if (std::isinf(d)) {
    out->push_back(static_cast<char>(d < 0 ? kNumNegativeInfinity : kNumPositiveInfinity));
    return;
  }
  if (d == 0) {
    out->push_back(static_cast<char>(kNumZero));
    return;
  }
  auto bits = std::bit_cast<std::uint64_t>(d);
  bool negative = (bits >> 63) != 0;
  int biased_exponent = static_cast<int>((bits >> 52) & 0x7FF);
  std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  if (biased_exponent == 0) {  // subnormal: mantissa * 2^-1074
    AppendFiniteNonZero(negative, mantissa, -1074, out);
  } else {
    AppendFiniteNonZero(negative, mantissa | (std::uint64_t{1} << 52), biased_exponent - 1075, out);
  }
}

// Under a collation the string bodies are the collator's comparison keys; everything else is
// encoded as in the simple collation.
using Collator = const bson::StringComparator*;

void AppendBody(bson::ValueView value, Collator collator, std::string* out);

void AppendValue(bson::ValueView value, Collator collator, std::string* out) {
  out->push_back(static_cast<char>(TagOf(value.type())));
  AppendBody(value, collator, out);
}

// Elements in order: tag (the type's rank), key, value body. CompareDocuments compares rank,
// then key, then value, and the tag-key-body order gives exactly that.
void AppendDocumentBody(bson::DocumentView doc, Collator collator, std::string* out) {
  for (const bson::Element& element : doc) {
    out->push_back(static_cast<char>(TagOf(element.value.type())));
    AppendCString(element.key, out);
    AppendBody(element.value, collator, out);
  }
  out->push_back(static_cast<char>(kTagEnd));
}

// Array keys are "0", "1", ... at the same positions in both arrays, so they never decide a
// comparison and are left out.
void AppendArrayBody(bson::DocumentView array, Collator collator, std::string* out) {
  for (const bson::Element& element : array) AppendValue(element.value, collator, out);
  out->push_back(static_cast<char>(kTagEnd));
}

// Everything after the tag.
void AppendBody(bson::ValueView value, Collator collator, std::string* out) {
  switch (value.type()) {
    case bson::Type::kEod:
    case bson::Type::kMinKey:
    case bson::Type::kMaxKey:
    case bson::Type::kUndefined:
    case bson::Type::kNull:
      return;
    case bson::Type::kInt32:
      AppendInt64Body(value.Int32(), out);
      return;
    case bson::Type::kInt64:
      AppendInt64Body(value.Int64(), out);
      return;
    case bson::Type::kDouble:
      AppendDoubleBody(value.Double(), out);
      return;
    case bson::Type::kDecimal128:
      // First version: through the double value, which is also how bson::CompareValues
      // compares decimals. Decimals that differ beyond double precision encode equal.
      AppendDoubleBody(value.AsDouble(), out);
      return;
    case bson::Type::kString:
    case bson::Type::kSymbol:
      if (collator != nullptr) {
        // Comparison keys order by memcmp with a shorter one first, as escaped bytes do.
        std::string comparison_key;
        collator->AppendComparisonKey(value.String(), &comparison_key);
        AppendEscapedBytes(comparison_key, out);
        return;
      }
      AppendEscapedBytes(value.String(), out);
      return;
    case bson::Type::kCode:
      AppendEscapedBytes(value.String(), out);
      return;
    case bson::Type::kDocument:
      AppendDocumentBody(value.Document(), collator, out);
      return;
    case bson::Type::kArray:
      AppendArrayBody(value.Document(), collator, out);
      return;
    case bson::Type::kBinary: {
      // CompareValues orders binaries by length, then subtype, then bytes; the fixed-width
      // length also makes the raw bytes self-delimiting.
      bson::BinaryView binary = value.Binary();
      AppendBigEndian(binary.data.size(), 4, out);
      out->push_back(static_cast<char>(binary.subtype));
      out->append(binary.data);
      return;
    }
    case bson::Type::kObjectId:
      out->append(value.data(), 12);
      return;
    case bson::Type::kBool:
      out->push_back(value.Bool() ? '\x01' : '\x00');
      return;
    case bson::Type::kDate:
      AppendBigEndian(static_cast<std::uint64_t>(value.Date()) ^ (std::uint64_t{1} << 63), 8, out);
      return;
    case bson::Type::kTimestamp:
      AppendBigEndian(value.Timestamp(), 8, out);
      return;
    case bson::Type::kRegex: {
      bson::RegexView regex = value.Regex();
      AppendCString(regex.pattern, out);
      AppendCString(regex.options, out);
      return;
    }
    case bson::Type::kDbPointer:
    case bson::Type::kCodeWithScope:
      // CompareValues compares these by their raw value bytes.
      AppendEscapedBytes({value.data(), value.size()}, out);
      return;
  }
}

// Skips the escaped bytes at `*pos` and their terminator; false when they do not end.
bool SkipEscapedBytes(std::string_view bytes, std::size_t* pos) {
  while (*pos + 1 < bytes.size()) {
    if (bytes[*pos] != '\0') {
      ++*pos;
    } else if (bytes[*pos + 1] == '\xFF') {
      *pos += 2;
    } else if (bytes[*pos + 1] == '\0') {
      *pos += 2;
      return true;
    } else {
      return false;
    }
  }
  return false;
}

bool SkipCString(std::string_view bytes, std::size_t* pos) {
  const std::size_t end = bytes.find('\0', *pos);
  if (end == std::string_view::npos) return false;
  *pos = end + 1;
  return true;
}

bool SkipBytes(std::string_view bytes, std::size_t count, std::size_t* pos) {
  if (bytes.size() - *pos < count) return false;
  *pos += count;
  return true;
}

bool SkipValue(std::string_view bytes, std::size_t* pos);

// The body of the value whose tag is `tag`, which `*pos` is just after.
bool SkipBody(std::string_view bytes, std::uint8_t tag, std::size_t* pos) {
  switch (tag) {
    case kTagMinKey:
    case kTagUndefined:
    case kTagNull:
    case kTagMaxKey:
      return true;
    case kTagNumber: {
      if (*pos >= bytes.size()) return false;
      const auto number_class = static_cast<std::uint8_t>(bytes[(*pos)++]);
      const bool finite = number_class == kNumNegative || number_class == kNumPositive;
      return !finite || SkipBytes(bytes, 10, pos);
    }
    case kTagString:
    case kTagCode:
    case kTagDbPointer:
    case kTagCodeWithScope:
      return SkipEscapedBytes(bytes, pos);
    case kTagDocument:
      while (*pos < bytes.size() && bytes[*pos] != kTagEnd) {
        const auto element_tag = static_cast<std::uint8_t>(bytes[(*pos)++]);
        if (!SkipCString(bytes, pos) || !SkipBody(bytes, element_tag, pos)) return false;
      }
      return SkipBytes(bytes, 1, pos);
    case kTagArray:
      while (*pos < bytes.size() && bytes[*pos] != kTagEnd) {
        if (!SkipValue(bytes, pos)) return false;
      }
      return SkipBytes(bytes, 1, pos);
    case kTagBinary: {
      if (bytes.size() - *pos < 5) return false;
      std::size_t length = 0;
      for (int i = 0; i < 4; ++i) length = length << 8 | static_cast<std::uint8_t>(bytes[*pos + i]);
      *pos += 5;
      return SkipBytes(bytes, length, pos);
    }
    case kTagObjectId:
      return SkipBytes(bytes, 12, pos);
    case kTagBool:
      return SkipBytes(bytes, 1, pos);
    case kTagDate:
    case kTagTimestamp:
      return SkipBytes(bytes, 8, pos);
    case kTagRegex:
      return SkipCString(bytes, pos) && SkipCString(bytes, pos);
    default:
      return false;
  }
}

bool SkipValue(std::string_view bytes, std::size_t* pos) {
  if (*pos >= bytes.size()) return false;
  const auto tag = static_cast<std::uint8_t>(bytes[(*pos)++]);
  return SkipBody(bytes, tag, pos);
}

}  // namespace

void AppendIndexKey(bson::ValueView value, bool descending, std::string* out) {
  AppendIndexKey(value, descending, nullptr, out);
}

void AppendIndexKey(bson::ValueView value, bool descending, const bson::StringComparator* collator,
                    std::string* out) {
  std::size_t start = out->size();
  AppendValue(value, collator, out);
  if (descending) {
    for (std::size_t i = start; i < out->size(); ++i) (*out)[i] = static_cast<char>(~(*out)[i]);
  }
}

std::string EncodeIndexKey(bson::ValueView value) { return EncodeIndexKey(value, nullptr); }

std::string EncodeIndexKey(bson::ValueView value, const bson::StringComparator* collator) {
  std::string out;
  AppendIndexKey(value, false, collator, &out);
  return out;
}

// Escaping maps each byte on its own, so the escaped prefix is a prefix of the escaped string;
// leaving out the terminator keeps it one of every longer string's too.
std::string StringPrefixKey(std::string_view prefix) {
  std::string out(1, static_cast<char>(kTagString));
  AppendEscapedBytes(prefix, &out);
  out.resize(out.size() - 2);
  return out;
}

// Every encoding starts with its type's tag, and tags are spaced apart, so tag + 1 is no tag.
std::pair<std::string, std::string> KeyTypeBracket(bson::Type type) {
  const Tag tag = TagOf(type);
  return {std::string(1, static_cast<char>(tag)), std::string(1, static_cast<char>(tag + 1))};
}

std::size_t EncodedLength(std::string_view bytes) {
  std::size_t pos = 0;
  return SkipValue(bytes, &pos) ? pos : 0;
}

std::size_t EncodedLength(std::string_view bytes, bool descending) {
  if (!descending) return EncodedLength(bytes);
  std::string ascending(bytes);
  for (char& c : ascending) c = static_cast<char>(~c);
  return EncodedLength(ascending);
}

}  // namespace quarry::storage
