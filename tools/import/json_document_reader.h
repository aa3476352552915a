// Reads a stream of JSON text one top-level document at a time, finding where each ends by
// its brackets and strings alone, without parsing it: the caller converts it (JsonToBson).
// Memory is one buffer of about the largest document, whatever the input's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"

namespace quarry::tools::importing {

enum class JsonFraming {
  kDocuments,  // documents one after another (one per line, or pretty-printed), as mongoimport
  kArray,      // one top-level array of documents (--jsonArray)
};

// A document's text, valid until the next call to Next. `readable` bytes from `data` may be
// read (at least `size`; a parser that reads ahead in blocks may use the slack).
struct JsonDocumentText {
  const char* data = nullptr;
  std::size_t size = 0;
  std::size_t readable = 0;
  std::int64_t line = 0;  // 1-based line of its opening brace
};

class JsonDocumentReader {
 public:
  // Documents larger than `max_document_bytes` are an error (the reader would otherwise grow
  // without bound on an unterminated document).
  JsonDocumentReader(std::FILE* input, JsonFraming framing, std::size_t max_document_bytes);

  // The next document. Returns false at the end of the input. Errors (kFailedToParse) name
  // the line: a value that is not a document, a missing '[' or ',' in an array, an input that
  // ends inside a document, a read error. After an error the reader stays failed.
  StatusWith<bool> Next(JsonDocumentText* document);

  // Bytes consumed from the input so far (for progress).
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  enum class Between { kStart, kBeforeDocument, kAfterDocument, kEnded };

  // Reads more input into the buffer, keeping the bytes from `keep_from` on. False at the end.
  StatusWith<bool> Refill(std::size_t keep_from);
  // Skips whitespace (and a leading UTF-8 byte-order mark) and the array's punctuation up to the
  // next document's '{'. Returns false at a clean end.
  StatusWith<bool> SeekDocument();
  Status Fail(const std::string& message);

  std::FILE* input_;
  const JsonFraming framing_;
  const std::size_t max_document_bytes_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // end of the bytes read
  bool input_ended_ = false;
  Between between_ = Between::kStart;
  std::int64_t line_ = 1;
  std::uint64_t bytes_read_ = 0;
  Status failed_ = Status::OK();
};

}  // namespace quarry::tools::importing
