// Structural BSON validation with an explicit stack: hostile nesting cannot exhaust the
// machine stack, and every length is checked against its container before it is trusted.
#include "bson/validate.h"

#include <bson/bson.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bson/types.h"
#include "bson/value.h"
#include "bson/value_internal.h"

namespace quarry::bson {
namespace {

using internal::CStringLength;
using internal::ReadInt32;

Status Invalid(std::string why) { return Status(ErrorCode::kInvalidBSON, "invalid BSON: " + why); }

struct Frame {
  const char* pos;  // next element's type byte
  const char* end;  // the container's terminating 0x00
};

// Checks a nested document header at p (with `available` bytes up to the parent's end) and
// returns its frame.
Status OpenNested(const char* p, std::int64_t available, Frame* frame) {
  if (available < 5) return Invalid("nested document truncated");
  std::int32_t len = ReadInt32(p);
  if (len < 5 || len > available) return Invalid("nested document length out of range");
  if (p[len - 1] != 0) return Invalid("nested document not terminated");
  *frame = Frame{p + 4, p + len - 1};
  return Status::OK();
}

class FrameStack {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  Frame& back() { return frames_[size_ - 1]; }
  void pop_back() { --size_; }
  void push_back(Frame frame) { frames_[size_++] = frame; }  // callers check kMaxNestingDepth

 private:
  std::array<Frame, kMaxNestingDepth + 1> frames_;  // the top-level document and its nesting
  std::size_t size_ = 0;
};

// Checks the run of doubles, int32s and int64s that starts at `p` (an array of numbers, above
// all a vector of hundreds) with less work per element than the general loop, and returns
// where the run ends: at `end`, or at the first element of another type or a malformed one,
// which the general loop then checks (and reports).
const char* SkipNumberRun(const char* p, const char* end) {
  while (p < end) {
    const auto type = static_cast<Type>(static_cast<std::uint8_t>(*p));
    std::ptrdiff_t value_size;
    if (type == Type::kDouble || type == Type::kInt64) {
      value_size = 8;
    } else if (type == Type::kInt32) {
      value_size = 4;
    } else {
      return p;
    }
    const char* name = p + 1;
    while (name < end && *name != '\0') ++name;  // array indexes are a few digits
    if (name == end || end - (name + 1) < value_size) return p;
    p = name + 1 + value_size;
  }
  return p;
}

}  // namespace

std::int64_t PeekDocumentLength(const char* data, std::size_t available) {
  if (available < 5) return -1;
  std::int32_t len = ReadInt32(data);
  if (len < 5 || static_cast<std::size_t>(len) > available) return -1;
  return len;
}

Status Validate(const char* data, std::size_t size, int* deepest) {
  if (size < 5) return Invalid("document shorter than 5 bytes");
  std::int32_t len = ReadInt32(data);
  if (len < 5 || static_cast<std::size_t>(len) != size) {
    return Invalid("document length does not match its size");
  }
  if (data[size - 1] != 0) return Invalid("document not terminated");

  // The depth limit bounds the stack, so it fits in a fixed array (3 KB) and validating a
  // document allocates nothing.
  FrameStack stack;
  stack.push_back(Frame{data + 4, data + size - 1});
  int levels = 1;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.pos == top.end) {
      stack.pop_back();
      continue;
    }
    const char* p = SkipNumberRun(top.pos, top.end);
    top.pos = p;
    if (p == top.end) continue;
    auto type_byte = static_cast<std::uint8_t>(*p);
    if (!IsKnownType(type_byte))
      return Invalid("unknown element type " + std::to_string(type_byte));
    Type type = static_cast<Type>(type_byte);
    ++p;
    std::int64_t key_len = CStringLength(p, top.end);
    if (key_len < 0) return Invalid("field name not terminated");
    p += key_len + 1;
    const std::int64_t available = top.end - p;  // bytes left for the value

    std::int64_t value_size = 0;
    Frame nested{nullptr, nullptr};
    bool has_nested = false;
    switch (type) {
      case Type::kDouble:
      case Type::kDate:
      case Type::kTimestamp:
      case Type::kInt64:
        value_size = 8;
        break;
      case Type::kInt32:
        value_size = 4;
        break;
      case Type::kDecimal128:
        value_size = 16;
        break;
      case Type::kObjectId:
        value_size = 12;
        break;
      case Type::kBool:
        if (available < 1) return Invalid("value truncated");
        if (*p != 0 && *p != 1) return Invalid("boolean is neither 0 nor 1");
        value_size = 1;
        break;
      case Type::kUndefined:
      case Type::kNull:
      case Type::kMinKey:
      case Type::kMaxKey:
        value_size = 0;
        break;
      case Type::kString:
      case Type::kCode:
      case Type::kSymbol:
      case Type::kDbPointer: {
        if (available < 4) return Invalid("string length truncated");
        std::int32_t n = ReadInt32(p);
        if (n < 1 || n > available - 4) return Invalid("string length out of range");
        if (p[4 + n - 1] != 0) return Invalid("string not terminated");
        value_size = 4 + static_cast<std::int64_t>(n);
        if (type == Type::kDbPointer) value_size += 12;
        break;
      }
      case Type::kBinary: {
        if (available < 5) return Invalid("binary length truncated");
        std::int32_t n = ReadInt32(p);
        if (n < 0 || n > available - 5) return Invalid("binary length out of range");
        if (static_cast<std::uint8_t>(p[4]) == 0x02) {
          if (n < 4 || ReadInt32(p + 5) != n - 4) return Invalid("old binary length mismatch");
        }
        value_size = 5 + static_cast<std::int64_t>(n);
        break;
      }
      case Type::kRegex: {
        std::int64_t pattern = CStringLength(p, top.end);
        if (pattern < 0) return Invalid("regex pattern not terminated");
        std::int64_t options = CStringLength(p + pattern + 1, top.end);
        if (options < 0) return Invalid("regex options not terminated");
        value_size = pattern + options + 2;
        break;
      }
      case Type::kDocument:
      case Type::kArray: {
        QUARRY_RETURN_IF_ERROR(OpenNested(p, available, &nested));
        value_size = ReadInt32(p);
        has_nested = true;
        break;
      }
      case Type::kCodeWithScope: {
        if (available < 4 + 4 + 1 + 5) return Invalid("code with scope truncated");
        std::int32_t total = ReadInt32(p);
        if (total < 14 || total > available) return Invalid("code with scope length out of range");
        std::int32_t n = ReadInt32(p + 4);
        if (n < 1 || n > total - 8 - 5) return Invalid("code length out of range");
        if (p[8 + n - 1] != 0) return Invalid("code not terminated");
        const char* scope = p + 8 + n;
        std::int64_t scope_available = total - 8 - n;
        QUARRY_RETURN_IF_ERROR(OpenNested(scope, scope_available, &nested));
        if (ReadInt32(scope) != scope_available) return Invalid("code with scope length mismatch");
        value_size = total;
        has_nested = true;
        break;
      }
      case Type::kEod:
        return Invalid("unexpected end of document");
    }
    if (value_size > available) return Invalid("value extends past its document");
    top.pos = p + value_size;
    if (has_nested) {
      if (static_cast<int>(stack.size()) > kMaxNestingDepth) {
        return Status(ErrorCode::kOverflow, "BSONObj exceeds maximum nested object depth of " +
                                                std::to_string(kMaxNestingDepth));
      }
      stack.push_back(nested);  // `top` is invalidated here; it is not used again
      levels = std::max(levels, static_cast<int>(stack.size()));
    }
  }
  if (deepest != nullptr) *deepest = levels;
  return Status::OK();
}

namespace {

bool IsUtf8(std::string_view text) {
  // A string's length, not a terminator, ends it: it may hold NUL bytes.
  return bson_utf8_validate(text.data(), text.size(), /*allow_null=*/true);
}

// A string value as BSON stores it inside other values: int32 length (with its NUL), bytes, NUL.
std::string_view LengthPrefixedString(const char* at) {
  return std::string_view(at + 4, static_cast<std::size_t>(ReadInt32(at) - 1));
}

Status NotUtf8(std::string_view what, std::string_view key) {
  return Status(ErrorCode::kNonConformantBSON,
                std::string(what) + " of field '" + std::string(key) + "' is not valid UTF-8");
}

}  // namespace

Status ValidateUtf8(const char* data, std::size_t size) {
  if (size < 5) return Status(ErrorCode::kInvalidBSON, "not a BSON document");
  std::vector<DocumentView> pending{DocumentView(data)};  // no recursion on the machine stack
  while (!pending.empty()) {
    const DocumentView document = pending.back();
    pending.pop_back();
    for (const Element& e : document) {
      if (!IsUtf8(e.key)) return NotUtf8("the name", e.key);
      const ValueView& value = e.value;
      switch (value.type()) {
        case Type::kString:
        case Type::kCode:
        case Type::kSymbol:
          if (!IsUtf8(value.String())) return NotUtf8("the string", e.key);
          break;
        case Type::kDocument:
        case Type::kArray:
          pending.push_back(value.Document());
          break;
        case Type::kRegex: {
          const RegexView regex = value.Regex();
          if (!IsUtf8(regex.pattern) || !IsUtf8(regex.options)) {
            return NotUtf8("the regular expression", e.key);
          }
          break;
        }
        case Type::kDbPointer:
          if (!IsUtf8(LengthPrefixedString(value.data()))) return NotUtf8("the pointer", e.key);
          break;
        case Type::kCodeWithScope:
          // int32 total, the code as a string, then the scope (ValueView::Document()).
          if (!IsUtf8(LengthPrefixedString(value.data() + 4))) return NotUtf8("the code", e.key);
          pending.push_back(value.Document());
          break;
        default:
          break;
      }
    }
  }
  return Status::OK();
}

int NestingDepth(const char* data, int limit) {
  // Iterators rather than recursion: the caller may be checking a document before it knows
  // how deep it is.
  std::vector<std::pair<DocumentView::Iterator, DocumentView::Iterator>> stack;
  const DocumentView top(data);
  stack.emplace_back(top.begin(), top.end());
  int deepest = 1;
  while (!stack.empty()) {
    auto& [it, end] = stack.back();
    if (it == end) {
      stack.pop_back();
      continue;
    }
    const ValueView value = it->value;
    ++it;
    if (value.type() != Type::kDocument && value.type() != Type::kArray) continue;
    const DocumentView nested = value.Document();
    stack.emplace_back(nested.begin(), nested.end());
    deepest = std::max(deepest, static_cast<int>(stack.size()));
    if (deepest > limit) break;
  }
  return deepest;
}

}  // namespace quarry::bson
