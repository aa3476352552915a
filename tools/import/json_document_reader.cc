#include "tools/import/json_document_reader.h"

#include <cerrno>
#include <cstring>

namespace quarry::tools::importing {
namespace {

constexpr std::size_t kReadBytes = 1 << 20;
// Slack after the data, so a parser reading ahead in 64-byte blocks stays inside the buffer.
constexpr std::size_t kPadding = 64;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string Describe(char c) {
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
    return hex;
  }
  return std::string("'") + c + "'";
}

}  // namespace

JsonDocumentReader::JsonDocumentReader(std::FILE* input, JsonFraming framing,
                                       std::size_t max_document_bytes)
    : input_(input), framing_(framing), max_document_bytes_(max_document_bytes) {
  buffer_.resize(kReadBytes + kPadding);
}

Status JsonDocumentReader::Fail(const std::string& message) {
  failed_ = Status(ErrorCode::kFailedToParse, "line " + std::to_string(line_) + ": " + message);
  return failed_;
}

StatusWith<bool> JsonDocumentReader::Refill(std::size_t keep_from) {
  if (input_ended_) return false;
  const std::size_t kept = end_ - keep_from;
  if (keep_from > 0) {
    std::memmove(buffer_.data(), buffer_.data() + keep_from, kept);
    begin_ -= keep_from;
    end_ = kept;
  }
  if (buffer_.size() - kPadding - end_ < kReadBytes / 2) {
    if (kept > max_document_bytes_) {
      return Fail("a document is larger than " + std::to_string(max_document_bytes_) +
                  " bytes (or its closing brace is missing)");
    }
    buffer_.resize(buffer_.size() * 2);
  }
  const std::size_t n =
      std::fread(buffer_.data() + end_, 1, buffer_.size() - kPadding - end_, input_);
  if (n == 0) {
    if (std::ferror(input_))
      return Fail(std::string("cannot read the input: ") + std::strerror(errno));
    input_ended_ = true;
    return false;
  }
  end_ += n;
  bytes_read_ += n;
  return true;
}

StatusWith<bool> JsonDocumentReader::SeekDocument() {
  while (true) {
    if (begin_ == end_) {
      auto more = Refill(begin_);
      if (!more.ok()) return more.status();
      if (!more.value()) break;
      continue;
    }
    const char c = buffer_[begin_];
    if (IsJsonSpace(c)) {
      if (c == '\n') ++line_;
      ++begin_;
      continue;
    }
    if (between_ == Between::kStart) {
      if (static_cast<unsigned char>(c) == 0xEF) {  // a UTF-8 byte-order mark
        if (end_ - begin_ < 3) {
          auto more = Refill(begin_);
          if (!more.ok()) return more.status();
          if (!more.value()) return Fail("the input starts with a bad byte-order mark");
          continue;
        }
        if (std::memcmp(buffer_.data() + begin_, "\xEF\xBB\xBF", 3) != 0) {
          return Fail("the input is not UTF-8 JSON");
        }
        begin_ += 3;
        continue;
      }
      if (framing_ == JsonFraming::kArray) {
        if (c != '[')
          return Fail("--jsonArray expects the input to start with '[', found " + Describe(c));
        ++begin_;
        between_ = Between::kBeforeDocument;
        continue;
      }
      between_ = Between::kBeforeDocument;
    }
    if (between_ == Between::kEnded)
      return Fail("unexpected " + Describe(c) + " after the array's closing ']'");
    if (framing_ == JsonFraming::kArray) {
      if (c == ']') {
        ++begin_;
        between_ = Between::kEnded;
        continue;
      }
      if (between_ == Between::kAfterDocument) {
        if (c != ',')
          return Fail("expected ',' or ']' between the array's documents, found " + Describe(c));
        ++begin_;
        between_ = Between::kBeforeDocument;
        continue;
      }
    }
    if (c != '{') return Fail("expected a document ('{'), found " + Describe(c));
    return true;
  }
  if (framing_ == JsonFraming::kArray && between_ != Between::kEnded) {
    return Fail(between_ == Between::kStart ? "--jsonArray expects '[', the input is empty"
                                            : "the input ends before the array's closing ']'");
  }
  return false;
}

StatusWith<bool> JsonDocumentReader::Next(JsonDocumentText* document) {
  if (!failed_.ok()) return failed_;
  auto found = SeekDocument();
  if (!found.ok() || !found.value()) return found;

  const std::int64_t first_line = line_;
  std::size_t scan = begin_;  // next byte to look at
  int depth = 0;
  char quote = 0;  // of the string being read: '"', or '\'' (the shell's syntax); 0 outside
  bool escaped = false;
  while (true) {
    if (scan == end_) {
      const std::size_t offset = scan - begin_;
      auto more = Refill(begin_);
      if (!more.ok()) return more.status();
      if (!more.value()) {
        line_ = first_line;
        return Fail("the input ends inside the document that starts here");
      }
      scan = begin_ + offset;
      continue;
    }
    const char c = buffer_[scan++];
    if (c == '\n') ++line_;
    if (quote != 0) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      break;
    }
  }
  document->data = buffer_.data() + begin_;
  document->size = scan - begin_;
  document->readable = buffer_.size() - begin_;
  document->line = first_line;
  begin_ = scan;
  between_ = Between::kAfterDocument;
  return true;
}

}  // namespace quarry::tools::importing
