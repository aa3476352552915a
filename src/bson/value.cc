// ValueView accessors, DocumentView iteration, Document and ObjectId.
#include "bson/value.h"

#include <bson/bson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "bson/value_internal.h"

namespace quarry::bson {

using internal::ReadDouble;
using internal::ReadInt32;
using internal::ReadInt64;
using internal::ReadUint64;

namespace internal {

std::int64_t ValueSize(Type type, const char* p) {
  switch (type) {
    case Type::kDouble:
    case Type::kDate:
    case Type::kTimestamp:
    case Type::kInt64:
      return 8;
    case Type::kString:
    case Type::kCode:
    case Type::kSymbol: {
      std::int32_t n = ReadInt32(p);
      return n < 1 ? -1 : 4 + static_cast<std::int64_t>(n);
    }
    case Type::kDocument:
    case Type::kArray:
    case Type::kCodeWithScope: {
      std::int32_t n = ReadInt32(p);
      return n < 5 ? -1 : n;
    }
    case Type::kBinary: {
      std::int32_t n = ReadInt32(p);
      return n < 0 ? -1 : 5 + static_cast<std::int64_t>(n);
    }
    case Type::kUndefined:
    case Type::kNull:
    case Type::kMinKey:
    case Type::kMaxKey:
      return 0;
    case Type::kObjectId:
      return 12;
    case Type::kBool:
      return 1;
    case Type::kRegex: {
      std::size_t pattern = std::strlen(p);
      std::size_t options = std::strlen(p + pattern + 1);
      return static_cast<std::int64_t>(pattern + options + 2);
    }
    case Type::kDbPointer: {
      std::int32_t n = ReadInt32(p);
      return n < 1 ? -1 : 4 + static_cast<std::int64_t>(n) + 12;
    }
    case Type::kInt32:
      return 4;
    case Type::kDecimal128:
      return 16;
    case Type::kEod:
      return -1;
  }
  return -1;
}

}  // namespace internal

namespace {
const char kEmptyDocument[5] = {5, 0, 0, 0, 0};
}  // namespace

// ---- ObjectId ----

std::string ObjectId::ToHex() const {
  static const char kHex[] = "0123456789abcdef";
  std::string out(24, '0');
  for (int i = 0; i < 12; ++i) {
    out[2 * i] = kHex[bytes[i] >> 4];
    out[2 * i + 1] = kHex[bytes[i] & 0xF];
  }
  return out;
}

bool ObjectId::FromHex(std::string_view hex, ObjectId* out) {
  if (hex.size() != 24) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (int i = 0; i < 12; ++i) {
    int hi = nibble(hex[2 * i]);
    int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return true;
}

ObjectId ObjectId::Generate() {
  // The 5-byte process-unique part and the counter's start are random, as the ObjectId spec asks.
  static const std::uint64_t kProcessRandom = [] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) | rd();
  }();
  static std::atomic<std::uint32_t> counter{[] {
    std::random_device rd;
    return static_cast<std::uint32_t>(rd());
  }()};
  ObjectId id;
  auto seconds = static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
  id.bytes[0] = static_cast<std::uint8_t>(seconds >> 24);
  id.bytes[1] = static_cast<std::uint8_t>(seconds >> 16);
  id.bytes[2] = static_cast<std::uint8_t>(seconds >> 8);
  id.bytes[3] = static_cast<std::uint8_t>(seconds);
  for (int i = 0; i < 5; ++i)
    id.bytes[4 + i] = static_cast<std::uint8_t>(kProcessRandom >> (8 * i));
  std::uint32_t c = counter.fetch_add(1, std::memory_order_relaxed);
  id.bytes[9] = static_cast<std::uint8_t>(c >> 16);
  id.bytes[10] = static_cast<std::uint8_t>(c >> 8);
  id.bytes[11] = static_cast<std::uint8_t>(c);
  return id;
}

// ---- ValueView ----

double ValueView::Double() const { return ReadDouble(data_); }
std::string_view ValueView::String() const {
  return {data_ + 4, static_cast<std::size_t>(ReadInt32(data_) - 1)};
}
DocumentView ValueView::Document() const {
  if (type_ == Type::kCodeWithScope) {
    // int32 total, string code, document scope: expose the scope.
    std::int32_t code_len = ReadInt32(data_ + 4);
    return DocumentView(data_ + 8 + code_len);
  }
  return DocumentView(data_);
}
BinaryView ValueView::Binary() const {
  std::int32_t n = ReadInt32(data_);
  std::uint8_t subtype = static_cast<std::uint8_t>(data_[4]);
  const char* bytes = data_ + 5;
  if (subtype == 0x02 && n >= 4) {  // old binary subtype: an inner length precedes the bytes
    return {subtype, {bytes + 4, static_cast<std::size_t>(n - 4)}};
  }
  return {subtype, {bytes, static_cast<std::size_t>(n)}};
}
ObjectId ValueView::Oid() const {
  ObjectId id;
  std::memcpy(id.bytes, data_, 12);
  return id;
}
bool ValueView::Bool() const { return data_[0] != 0; }
std::int64_t ValueView::Date() const { return ReadInt64(data_); }
std::uint64_t ValueView::Timestamp() const {
  // Stored as increment (low 4 bytes) then seconds (high 4 bytes): a little-endian uint64.
  return ReadUint64(data_);
}
RegexView ValueView::Regex() const {
  std::size_t pattern = std::strlen(data_);
  const char* options = data_ + pattern + 1;
  return {{data_, pattern}, {options, std::strlen(options)}};
}
std::int32_t ValueView::Int32() const { return ReadInt32(data_); }
std::int64_t ValueView::Int64() const { return ReadInt64(data_); }
Decimal128 ValueView::Dec128() const { return {ReadUint64(data_), ReadUint64(data_ + 8)}; }

double ValueView::AsDouble() const {
  switch (type_) {
    case Type::kDouble:
      return Double();
    case Type::kInt32:
      return Int32();
    case Type::kInt64:
      return static_cast<double>(Int64());
    case Type::kDecimal128: {
      bson_decimal128_t dec;
      Decimal128 d = Dec128();
      dec.low = d.low;
      dec.high = d.high;
      char str[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&dec, str);
      std::string s(str);
      if (s == "NaN" || s == "-NaN") return std::numeric_limits<double>::quiet_NaN();
      if (s == "Infinity") return std::numeric_limits<double>::infinity();
      if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
      return std::strtod(str, nullptr);
    }
    default:
      return 0.0;
  }
}

std::int64_t ValueView::AsInt64() const {
  switch (type_) {
    case Type::kInt32:
      return Int32();
    case Type::kInt64:
      return Int64();
    case Type::kDouble:
    case Type::kDecimal128: {
      double d = AsDouble();
      if (std::isnan(d)) return 0;
      if (d >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
      if (d <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
      return static_cast<std::int64_t>(d);
    }
    default:
      return 0;
  }
}

bool ValueView::IsIntegral() const {
  switch (type_) {
    case Type::kInt32:
    case Type::kInt64:
      return true;
    case Type::kDouble:
    case Type::kDecimal128: {
      double d = AsDouble();
      return std::isfinite(d) && std::trunc(d) == d && d >= -9.2233720368547758e18 &&
             d < 9.2233720368547758e18;
    }
    default:
      return false;
  }
}

bool ValueView::Truthy() const {
  switch (type_) {
    case Type::kEod:
    case Type::kNull:
    case Type::kUndefined:
      return false;
    case Type::kBool:
      return Bool();
    case Type::kInt32:
      return Int32() != 0;
    case Type::kInt64:
      return Int64() != 0;
    case Type::kDouble:
      return Double() != 0.0;  // NaN is truthy, as in MongoDB
    case Type::kDecimal128: {
      double d = AsDouble();
      return d != 0.0;
    }
    default:
      return true;
  }
}

// ---- DocumentView ----

DocumentView::DocumentView() : data_(kEmptyDocument) {}

std::size_t DocumentView::size() const { return static_cast<std::size_t>(ReadInt32(data_)); }

DocumentView::Iterator::Iterator(const char* pos, const char* end) : pos_(pos), end_(end) {
  Load();
}

void DocumentView::Iterator::Load() {
  if (pos_ >= end_) {
    pos_ = end_;
    return;
  }
  Type type = static_cast<Type>(static_cast<std::uint8_t>(*pos_));
  const char* key = pos_ + 1;
  const std::int64_t key_len = internal::CStringLength(key, end_);
  const char* value = key + key_len + 1;
  std::int64_t size = key_len < 0 ? -1 : internal::ValueSize(type, value);
  if (size < 0) {  // only reachable with unvalidated bytes; end the iteration safely
    pos_ = end_;
    return;
  }
  current_ = Element{{key, static_cast<std::size_t>(key_len)},
                     ValueView(type, value, static_cast<std::size_t>(size))};
  next_ = value + size;
}

DocumentView::Iterator& DocumentView::Iterator::operator++() {
  pos_ = next_;
  Load();
  return *this;
}

DocumentView::Iterator DocumentView::begin() const {
  return Iterator(data_ + 4, data_ + size() - 1);
}
DocumentView::Iterator DocumentView::end() const {
  return Iterator(data_ + size() - 1, data_ + size() - 1);
}

// Commands look up a dozen fields of their body each, so this walks the elements without
// building each one: a name is compared in place, and measured (by memchr, which is vectorized)
// only when it is not the key.
ValueView DocumentView::Get(std::string_view key) const {
  const char* p = data_ + 4;
  const char* const end = data_ + size() - 1;
  const std::size_t key_size = key.size();
  while (p < end) {
    const Type type = static_cast<Type>(static_cast<std::uint8_t>(*p));
    const char* name = p + 1;
    const bool same = static_cast<std::size_t>(end - name) > key_size && name[key_size] == '\0' &&
                      std::memcmp(name, key.data(), key_size) == 0;
    const char* name_end =
        same ? name + key_size
             : static_cast<const char*>(std::memchr(name, 0, static_cast<std::size_t>(end - name)));
    if (name_end == nullptr) return {};  // only reachable with unvalidated bytes
    const char* value = name_end + 1;
    const std::int64_t value_size = internal::ValueSize(type, value);
    if (value_size < 0) return {};
    if (same) return ValueView(type, value, static_cast<std::size_t>(value_size));
    p = value + value_size;
  }
  return {};
}

bool DocumentView::HasAnyOf(std::initializer_list<std::string_view> keys) const {
  for (const Element& e : *this) {
    if (std::find(keys.begin(), keys.end(), e.key) != keys.end()) return true;
  }
  return false;
}

std::string_view DocumentView::FirstKey() const {
  auto it = begin();
  return it == end() ? std::string_view() : it->key;
}

std::size_t DocumentView::CountElements() const {
  std::size_t n = 0;
  for (auto it = begin(); it != end(); ++it) ++n;
  return n;
}

// ---- Document ----

Document::Document() : bytes_(kEmptyDocument, sizeof(kEmptyDocument)) {}

void Document::AddCompressedSpans(std::vector<CompressedSpan> spans) {
  if (spans.empty()) return;
  // Copies share the list, so it is replaced rather than changed.
  if (compressed_ != nullptr) spans.insert(spans.begin(), compressed_->begin(), compressed_->end());
  compressed_ = std::make_shared<std::vector<CompressedSpan>>(std::move(spans));
}

}  // namespace quarry::bson
