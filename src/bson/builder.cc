// DocumentBuilder and ArrayBuilder: appends elements to one growing buffer.
#include "bson/builder.h"

#include <cstring>
#include <limits>

#include "base/check.h"

namespace quarry::bson {
namespace {

void PutInt32(std::string* buf, std::int32_t v) {
  buf->append(reinterpret_cast<const char*>(&v), 4);
}
void PutInt64(std::string* buf, std::int64_t v) {
  buf->append(reinterpret_cast<const char*>(&v), 8);
}
void PutCString(std::string* buf, std::string_view s) {
  buf->append(s.data(), s.size());
  buf->push_back('\0');
}
void PutString(std::string* buf, std::string_view s) {
  PutInt32(buf, static_cast<std::int32_t>(s.size() + 1));
  PutCString(buf, s);
}
void PatchInt32(std::string* buf, std::size_t offset, std::int32_t v) {
  std::memcpy(buf->data() + offset, &v, 4);
}

}  // namespace

DocumentBuilder::DocumentBuilder() : DocumentBuilder(64) {}

DocumentBuilder::DocumentBuilder(std::size_t bytes) {
  buffer_.reserve(bytes);
  PutInt32(&buffer_, 0);  // patched by Finish
}

DocumentBuilder::DocumentBuilder(Document doc) {
  for (const CompressedSpan& span : doc.compressed_spans()) {
    if (span.offset >= 4 && span.offset + span.size < doc.size()) compressed_.push_back(span);
  }
  buffer_ = std::move(doc).TakeBytes();
  QUARRY_DCHECK(buffer_.size() >= 5 && buffer_.back() == '\0');
  buffer_.pop_back();  // the terminating NUL: Finish writes it again and patches the length
}

void DocumentBuilder::AppendHeader(Type type, std::string_view key) {
  buffer_.push_back(static_cast<char>(type));
  // A key with an embedded NUL would corrupt the document: cut it there, as C strings do.
  PutCString(&buffer_, key.substr(0, key.find('\0')));
}

DocumentBuilder& DocumentBuilder::Append(std::string_view key, ValueView value) {
  if (!value.exists()) return *this;
  AppendHeader(value.type(), key);
  buffer_.append(value.data(), value.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendDouble(std::string_view key, double value) {
  AppendHeader(Type::kDouble, key);
  buffer_.append(reinterpret_cast<const char*>(&value), 8);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendString(std::string_view key, std::string_view value) {
  AppendHeader(Type::kString, key);
  PutString(&buffer_, value);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendDocument(std::string_view key, DocumentView value) {
  AppendHeader(Type::kDocument, key);
  buffer_.append(value.data(), value.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendDocument(std::string_view key, const Document& value) {
  AppendHeader(Type::kDocument, key);
  for (const CompressedSpan& span : value.compressed_spans()) {
    compressed_.push_back({buffer_.size() + span.offset, span.size, span.zstd_frame});
  }
  buffer_.append(value.bytes());
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendArray(std::string_view key, DocumentView value) {
  AppendHeader(Type::kArray, key);
  buffer_.append(value.data(), value.size());
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendBinary(std::string_view key, std::uint8_t subtype,
                                               std::string_view data) {
  AppendHeader(Type::kBinary, key);
  PutInt32(&buffer_, static_cast<std::int32_t>(data.size()));
  buffer_.push_back(static_cast<char>(subtype));
  buffer_.append(data);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendObjectId(std::string_view key, const ObjectId& value) {
  AppendHeader(Type::kObjectId, key);
  buffer_.append(reinterpret_cast<const char*>(value.bytes), 12);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendBool(std::string_view key, bool value) {
  AppendHeader(Type::kBool, key);
  buffer_.push_back(value ? 1 : 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendDate(std::string_view key, std::int64_t millis) {
  AppendHeader(Type::kDate, key);
  PutInt64(&buffer_, millis);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendNull(std::string_view key) {
  AppendHeader(Type::kNull, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendUndefined(std::string_view key) {
  AppendHeader(Type::kUndefined, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendRegex(std::string_view key, std::string_view pattern,
                                              std::string_view options) {
  AppendHeader(Type::kRegex, key);
  PutCString(&buffer_, pattern.substr(0, pattern.find('\0')));
  PutCString(&buffer_, options.substr(0, options.find('\0')));
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendInt32(std::string_view key, std::int32_t value) {
  AppendHeader(Type::kInt32, key);
  PutInt32(&buffer_, value);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendTimestamp(std::string_view key, std::uint64_t value) {
  AppendHeader(Type::kTimestamp, key);
  buffer_.append(reinterpret_cast<const char*>(&value), 8);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendInt64(std::string_view key, std::int64_t value) {
  AppendHeader(Type::kInt64, key);
  PutInt64(&buffer_, value);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendNumber(std::string_view key, std::int64_t value) {
  if (value >= std::numeric_limits<std::int32_t>::min() &&
      value <= std::numeric_limits<std::int32_t>::max()) {
    return AppendInt32(key, static_cast<std::int32_t>(value));
  }
  return AppendInt64(key, value);
}
DocumentBuilder& DocumentBuilder::AppendDecimal128(std::string_view key, Decimal128 value) {
  AppendHeader(Type::kDecimal128, key);
  buffer_.append(reinterpret_cast<const char*>(&value.low), 8);
  buffer_.append(reinterpret_cast<const char*>(&value.high), 8);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendMinKey(std::string_view key) {
  AppendHeader(Type::kMinKey, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendMaxKey(std::string_view key) {
  AppendHeader(Type::kMaxKey, key);
  return *this;
}
DocumentBuilder& DocumentBuilder::AppendElements(DocumentView doc) {
  // The elements are the document's bytes between its length and its terminator.
  if (doc.size() > 5) buffer_.append(doc.data() + 4, doc.size() - 5);
  return *this;
}

DocumentBuilder& DocumentBuilder::OpenDocument(std::string_view key) {
  AppendHeader(Type::kDocument, key);
  PushOpen(buffer_.size());
  PutInt32(&buffer_, 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::OpenArray(std::string_view key) {
  AppendHeader(Type::kArray, key);
  PushOpen(buffer_.size());
  PutInt32(&buffer_, 0);
  return *this;
}
DocumentBuilder& DocumentBuilder::Close() {
  QUARRY_CHECK(open_count_ > 0);
  const std::size_t start = PopOpen();
  buffer_.push_back('\0');
  PatchInt32(&buffer_, start, static_cast<std::int32_t>(buffer_.size() - start));
  return *this;
}

void DocumentBuilder::PushOpen(std::size_t offset) {
  if (open_count_ < kInlineOpen) {
    open_inline_[open_count_] = offset;
  } else {
    open_deeper_.push_back(offset);
  }
  ++open_count_;
}

std::size_t DocumentBuilder::PopOpen() {
  --open_count_;
  if (open_count_ < kInlineOpen) return open_inline_[open_count_];
  const std::size_t offset = open_deeper_.back();
  open_deeper_.pop_back();
  return offset;
}

bool DocumentBuilder::HasKey(std::string_view key) const {
  if (open_count_ > 0) return false;
  std::string copy = buffer_;
  copy.push_back('\0');
  PatchInt32(&copy, 0, static_cast<std::int32_t>(copy.size()));
  return DocumentView(copy.data()).Has(key);
}

std::string DocumentBuilder::FinishBytes() && {
  QUARRY_CHECK(open_count_ == 0);
  buffer_.push_back('\0');
  PatchInt32(&buffer_, 0, static_cast<std::int32_t>(buffer_.size()));
  return std::move(buffer_);
}

Document DocumentBuilder::Finish() && {
  std::vector<CompressedSpan> spans = std::move(compressed_);
  Document doc(std::move(*this).FinishBytes());
  doc.AddCompressedSpans(std::move(spans));
  return doc;
}

ArrayBuilder& ArrayBuilder::Append(ValueView value) {
  if (!value.exists()) return *this;  // keep the keys dense: "0", "1", ... with no gaps
  builder_.Append(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendString(std::string_view value) {
  builder_.AppendString(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendDocument(DocumentView value) {
  builder_.AppendDocument(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendInt32(std::int32_t value) {
  builder_.AppendInt32(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendInt64(std::int64_t value) {
  builder_.AppendInt64(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendDouble(double value) {
  builder_.AppendDouble(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendBool(bool value) {
  builder_.AppendBool(NextKey(), value);
  return *this;
}
ArrayBuilder& ArrayBuilder::AppendNull() {
  builder_.AppendNull(NextKey());
  return *this;
}

}  // namespace quarry::bson
