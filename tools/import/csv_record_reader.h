// Reads CSV (RFC 4180: quoted fields may hold separators, quotes doubled, and line breaks) or
// TSV (tab-separated, no quoting) one record at a time from a stream, with the line each
// record starts on. Blank lines are skipped. Memory is about one record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"

namespace quarry::tools::importing {

enum class Delimited { kCsv, kTsv };

class CsvRecordReader {
 public:
  CsvRecordReader(std::FILE* input, Delimited format, std::size_t max_record_bytes);

  // The next record's fields, and its first line. False at the end of the input. Errors
  // (kFailedToParse) name the line: an input that ends inside a quoted field, text after a
  // closing quote, a record longer than the limit, a read error. The reader stays failed.
  StatusWith<bool> Next(std::vector<std::string>* fields, std::int64_t* line);

  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  // The next byte, or -1 at the end of the input (-2 after a read error).
  int Get();
  Status Fail(std::int64_t line, const std::string& message);

  std::FILE* input_;
  const Delimited format_;
  const std::size_t max_record_bytes_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::int64_t line_ = 1;
  std::uint64_t bytes_read_ = 0;
  Status failed_ = Status::OK();
};

}  // namespace quarry::tools::importing
