#include "tools/import/csv_record_reader.h"

#include <cerrno>
#include <cstring>

namespace quarry::tools::importing {
namespace {
constexpr std::size_t kReadBytes = 1 << 20;
constexpr int kEnd = -1;
constexpr int kReadError = -2;
}  // namespace

CsvRecordReader::CsvRecordReader(std::FILE* input, Delimited format, std::size_t max_record_bytes)
    : input_(input), format_(format), max_record_bytes_(max_record_bytes), buffer_(kReadBytes) {}

Status CsvRecordReader::Fail(std::int64_t line, const std::string& message) {
  failed_ = Status(ErrorCode::kFailedToParse, "line " + std::to_string(line) + ": " + message);
  return failed_;
}

int CsvRecordReader::Get() {
  if (pos_ == end_) {
    end_ = std::fread(buffer_.data(), 1, buffer_.size(), input_);
    pos_ = 0;
    if (end_ == 0) return std::ferror(input_) ? kReadError : kEnd;
    bytes_read_ += end_;
  }
  return static_cast<unsigned char>(buffer_[pos_++]);
}

StatusWith<bool> CsvRecordReader::Next(std::vector<std::string>* fields, std::int64_t* line) {
  if (!failed_.ok()) return failed_;
  const char separator = format_ == Delimited::kCsv ? ',' : '\t';
  const bool quoting = format_ == Delimited::kCsv;
  fields->clear();
  std::size_t record_bytes = 0;
  std::string field;
  bool record_started = false;
  bool in_quotes = false;
  bool after_quote = false;  // the field's closing quote was read
  std::int64_t start_line = line_;
  while (true) {
    const int c = Get();
    if (c == kReadError)
      return Fail(line_, std::string("cannot read the input: ") + std::strerror(errno));
    if (c == kEnd) {
      if (in_quotes) return Fail(start_line, "the input ends inside a quoted field");
      if (!record_started) return false;
      fields->push_back(std::move(field));
      *line = start_line;
      return true;
    }
    if (++record_bytes > max_record_bytes_) {
      return Fail(start_line,
                  "a record is longer than " + std::to_string(max_record_bytes_) + " bytes");
    }
    const char ch = static_cast<char>(c);
    if (in_quotes) {
      if (ch == '"') {
        in_quotes = false;
        after_quote = true;
      } else {
        if (ch == '\n') ++line_;
        field.push_back(ch);
      }
      continue;
    }
    if (ch == '\n' || ch == '\r') {
      if (ch == '\n') ++line_;
      if (!record_started) {  // a blank line
        start_line = line_;
        continue;
      }
      if (ch == '\r') continue;  // the \n of \r\n ends the record; a lone \r is dropped
      fields->push_back(std::move(field));
      *line = start_line;
      return true;
    }
    record_started = true;
    if (after_quote) {
      if (ch == '"') {  // a doubled quote inside a quoted field
        field.push_back('"');
        in_quotes = true;
        after_quote = false;
        continue;
      }
      if (ch != separator) return Fail(line_, "unexpected text after a closing quote");
    }
    if (ch == separator) {
      fields->push_back(std::move(field));
      field.clear();
      after_quote = false;
      continue;
    }
    if (quoting && ch == '"' && field.empty()) {
      in_quotes = true;
      continue;
    }
    field.push_back(ch);
  }
}

}  // namespace quarry::tools::importing
