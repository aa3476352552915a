// Building BSON documents and arrays in one buffer, appending in order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::bson {

// Appends elements to a document. Nested documents and arrays are opened and closed in place:
//   DocumentBuilder b;
//   b.AppendInt32("n", 1);
//   b.OpenArray("values"); b.AppendString("0", "x"); b.Close();
//   Document d = std::move(b).Finish();
// ArrayBuilder numbers its keys itself. Within OpenArray, use the *Element methods of an
// ArrayBuilder or give keys "0", "1", ... yourself.
class DocumentBuilder {
 public:
  DocumentBuilder();
  // Room for a document of about `bytes`, so appending to it does not reallocate.
  explicit DocumentBuilder(std::size_t bytes);
  // Continues `doc`: elements go after its last one, in its own buffer, without copying it.
  // Its compressed spans inside it are kept; one that covers its length is not.
  explicit DocumentBuilder(Document doc);

  DocumentBuilder& Append(std::string_view key, ValueView value);
  DocumentBuilder& AppendDouble(std::string_view key, double value);
  DocumentBuilder& AppendString(std::string_view key, std::string_view value);
  DocumentBuilder& AppendDocument(std::string_view key, DocumentView value);
  // Also keeps `value`'s compressed spans, which the finished document then has.
  DocumentBuilder& AppendDocument(std::string_view key, const Document& value);
  DocumentBuilder& AppendArray(std::string_view key, DocumentView value);
  DocumentBuilder& AppendBinary(std::string_view key, std::uint8_t subtype, std::string_view data);
  DocumentBuilder& AppendObjectId(std::string_view key, const ObjectId& value);
  DocumentBuilder& AppendBool(std::string_view key, bool value);
  DocumentBuilder& AppendDate(std::string_view key, std::int64_t millis);
  DocumentBuilder& AppendNull(std::string_view key);
  DocumentBuilder& AppendUndefined(std::string_view key);
  DocumentBuilder& AppendRegex(std::string_view key, std::string_view pattern,
                               std::string_view options);
  DocumentBuilder& AppendInt32(std::string_view key, std::int32_t value);
  DocumentBuilder& AppendTimestamp(std::string_view key, std::uint64_t value);
  DocumentBuilder& AppendInt64(std::string_view key, std::int64_t value);
  // An int32 when `value` fits one, else an int64, as mongod appends a count or a size.
  DocumentBuilder& AppendNumber(std::string_view key, std::int64_t value);
  DocumentBuilder& AppendDecimal128(std::string_view key, Decimal128 value);
  DocumentBuilder& AppendMinKey(std::string_view key);
  DocumentBuilder& AppendMaxKey(std::string_view key);
  // Appends every element of `doc`.
  DocumentBuilder& AppendElements(DocumentView doc);

  // Opens a nested document or array; elements go into it until the matching Close().
  DocumentBuilder& OpenDocument(std::string_view key);
  DocumentBuilder& OpenArray(std::string_view key);
  DocumentBuilder& Close();

  // Room for `more` bytes past those so far, so the appends that follow do not reallocate.
  void Reserve(std::size_t more) { buffer_.reserve(buffer_.size() + more); }

  // The number of bytes so far, for callers that stop a batch below a size limit.
  std::size_t size() const { return buffer_.size(); }
  bool HasKey(std::string_view key) const;  // top level only; linear

  // Closes the top-level document. REQUIRES: every Open has been closed.
  Document Finish() &&;
  // The bytes of the finished document, without copying.
  std::string FinishBytes() &&;

 private:
  void AppendHeader(Type type, std::string_view key);
  void PushOpen(std::size_t offset);
  std::size_t PopOpen();

  std::string buffer_;
  // The offsets of the length fields of open documents, innermost last. Replies and stored
  // documents rarely nest deeper than a few levels, so those levels are kept inline and opening
  // one allocates nothing; deeper ones go to `open_deeper_`.
  static constexpr std::size_t kInlineOpen = 6;
  std::array<std::size_t, kInlineOpen> open_inline_{};
  std::vector<std::size_t> open_deeper_;
  std::size_t open_count_ = 0;
  std::vector<CompressedSpan> compressed_;
};

// Appends values to an array with keys "0", "1", ...
class ArrayBuilder {
 public:
  ArrayBuilder() = default;

  ArrayBuilder& Append(ValueView value);
  ArrayBuilder& AppendString(std::string_view value);
  ArrayBuilder& AppendDocument(DocumentView value);
  ArrayBuilder& AppendInt32(std::int32_t value);
  ArrayBuilder& AppendInt64(std::int64_t value);
  ArrayBuilder& AppendDouble(double value);
  ArrayBuilder& AppendBool(bool value);
  ArrayBuilder& AppendNull();

  std::size_t count() const { return count_; }
  std::size_t size() const { return builder_.size(); }
  // The array's bytes: a BSON document with numeric keys.
  Document Finish() && { return std::move(builder_).Finish(); }

 private:
  std::string NextKey() { return std::to_string(count_++); }
  DocumentBuilder builder_;
  std::size_t count_ = 0;
};

}  // namespace quarry::bson
