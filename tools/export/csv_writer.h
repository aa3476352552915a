// CSV output of `quarry export --type csv`: a header line of the field names, then a row per
// document with each field looked up by its dotted path, quoted per RFC 4180.
#pragma once

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/export/document_formatter.h"

namespace quarry::tools::exporting {

// Appends `field` to `*out`, between double quotes (and with each quote doubled) when it holds
// a comma, a double quote, CR or LF.
void AppendCsvField(std::string_view field, std::string* out);

// Rows end with "\n". A field missing from a document is an empty cell.
class CsvFormatter : public DocumentFormatter {
 public:
  // REQUIRES: !fields.empty().
  CsvFormatter(std::vector<std::string> fields, bool header_line)
      : fields_(std::move(fields)), header_line_(header_line) {}

  void Begin(std::string* out) override;
  void Add(const bson_t& document, std::string* out) override;
  void Finish(std::string*) override {}

 private:
  const std::vector<std::string> fields_;
  const bool header_line_;
  std::string cell_;  // one cell's text before quoting
};

}  // namespace quarry::tools::exporting
