// Read-only views over BSON values and documents. Views do not own their bytes: they are valid
// while the buffer they point into is, and they trust it (run Validate on client bytes first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bson/types.h"

namespace quarry::bson {

class DocumentView;

struct Decimal128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  bool operator==(const Decimal128&) const = default;
};

struct ObjectId {
  std::uint8_t bytes[12] = {};
  bool operator==(const ObjectId& other) const { return std::memcmp(bytes, other.bytes, 12) == 0; }
  std::string ToHex() const;
  // A new id: 4-byte seconds, 5 random bytes per process, 3-byte counter.
  static ObjectId Generate();
  static bool FromHex(std::string_view hex, ObjectId* out);
};

struct BinaryView {
  std::uint8_t subtype = 0;
  std::string_view data;
};

struct RegexView {
  std::string_view pattern;
  std::string_view options;
};

// One BSON value: its type and the bytes of its value (after the key).
class ValueView {
 public:
  ValueView() = default;  // an absent value: type kEod, for "field not found"
  ValueView(Type type, const char* data, std::size_t size)
      : type_(type), data_(data), size_(size) {}

  bool exists() const { return type_ != Type::kEod; }
  Type type() const { return type_; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }  // bytes of the value

  bool IsNumber() const { return bson::IsNumber(type_); }
  bool IsNullish() const { return type_ == Type::kNull || type_ == Type::kUndefined; }

  // Typed accessors. REQUIRES: type() is the accessor's type.
  double Double() const;
  std::string_view String() const;  // also kCode and kSymbol
  DocumentView Document() const;    // kDocument or kArray
  BinaryView Binary() const;
  ObjectId Oid() const;
  bool Bool() const;
  std::int64_t Date() const;        // milliseconds since the epoch
  std::uint64_t Timestamp() const;  // seconds << 32 | increment
  RegexView Regex() const;
  std::int32_t Int32() const;
  std::int64_t Int64() const;
  Decimal128 Dec128() const;

  // Numeric conversions for any number type. AsInt64 truncates doubles toward zero and
  // saturates; callers check integrality where MongoDB requires it.
  double AsDouble() const;
  std::int64_t AsInt64() const;
  // True for a number whose value is a whole number that fits in int64.
  bool IsIntegral() const;

  // "truthy" as MongoDB's expressions define it: false, null, undefined, missing, 0 are false.
  bool Truthy() const;

  // Relaxed Extended JSON of this value alone, for messages and logs.
  std::string ToJson() const;

 private:
  Type type_ = Type::kEod;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

struct Element {
  std::string_view key;
  ValueView value;
};

// A BSON document or array: int32 length, elements, 0x00.
class DocumentView {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Element;
    using difference_type = std::ptrdiff_t;
    using pointer = const Element*;
    using reference = const Element&;

    Iterator() = default;
    Iterator(const char* pos, const char* end);
    const Element& operator*() const { return current_; }
    const Element* operator->() const { return &current_; }
    Iterator& operator++();
    Iterator operator++(int) {
      Iterator copy = *this;
      ++*this;
      return copy;
    }
    bool operator==(const Iterator& other) const { return pos_ == other.pos_; }

   private:
    void Load();
    const char* pos_ = nullptr;
    const char* end_ = nullptr;  // the terminating 0x00
    const char* next_ = nullptr;
    Element current_;
  };

  DocumentView();  // the empty document {}
  explicit DocumentView(const char* data) : data_(data) {}
  // REQUIRES: data holds a whole valid document.

  const char* data() const { return data_; }
  std::size_t size() const;
  std::string_view bytes() const { return {data_, size()}; }
  bool empty() const { return size() <= 5; }

  Iterator begin() const;
  Iterator end() const;

  // The first element with this key (no dots: see bson/path.h for paths), or absent.
  ValueView Get(std::string_view key) const;
  bool Has(std::string_view key) const { return Get(key).exists(); }
  // Whether any of `keys` is present: one pass over the elements, where a Has per key would make
  // one pass each (a whole one for each absent key).
  bool HasAnyOf(std::initializer_list<std::string_view> keys) const;
  std::string_view FirstKey() const;
  std::size_t CountElements() const;

  // Relaxed / canonical Extended JSON, as the shells print them.
  std::string ToJson() const;
  std::string ToCanonicalJson() const;
  std::string ToArrayJson() const;  // for arrays: [ ... ]

 private:
  const char* data_;
};

// Bytes of a document that are also held compressed, as a zstd frame of exactly those bytes
// (a large record as storage keeps it): a reply compressed with zstd can send the frame as it
// is instead of compressing the bytes again.
struct CompressedSpan {
  std::size_t offset = 0;
  std::size_t size = 0;
  std::shared_ptr<const std::string> zstd_frame;
};

// A document that owns its bytes.
class Document {
 public:
  Document();  // {}
  explicit Document(std::string bytes) : bytes_(std::move(bytes)) {}
  static Document Copy(DocumentView view) { return Document(std::string(view.bytes())); }

  // Records that these spans of the bytes are also held compressed; copies share the record.
  void AddCompressedSpans(std::vector<CompressedSpan> spans);
  std::span<const CompressedSpan> compressed_spans() const {
    return compressed_ == nullptr ? std::span<const CompressedSpan>() : *compressed_;
  }

  DocumentView view() const { return DocumentView(bytes_.data()); }
  operator DocumentView() const { return view(); }  // NOLINT: a document is usable as a view
  const std::string& bytes() const { return bytes_; }
  std::string TakeBytes() && { return std::move(bytes_); }
  std::size_t size() const { return bytes_.size(); }

  ValueView Get(std::string_view key) const { return view().Get(key); }
  std::string ToJson() const { return view().ToJson(); }

 private:
  std::string bytes_;
  std::shared_ptr<std::vector<CompressedSpan>> compressed_;  // null for almost every document
};

}  // namespace quarry::bson
