// JSON output of `quarry export`: a document per line of Extended JSON (relaxed or canonical),
// or with --jsonArray one JSON array, and with --pretty indented, framed as mongoexport frames
// them.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <string>

#include "tools/export/document_formatter.h"

namespace quarry::tools::exporting {

enum class JsonFormat { kRelaxed, kCanonical };

// Appends `document` as compact Extended JSON in `format` to `*out`.
void AppendDocumentJson(const bson_t& document, JsonFormat format, std::string* out);

// Without --jsonArray or --pretty each document is one line. --jsonArray writes `[`, the
// documents separated by commas and `]` and a newline; --pretty indents each document and
// separates documents with a newline (after the comma in an array).
class JsonFormatter : public DocumentFormatter {
 public:
  JsonFormatter(JsonFormat format, bool json_array, bool pretty)
      : format_(format), json_array_(json_array), pretty_(pretty) {}

  void Begin(std::string* out) override;
  void Add(const bson_t& document, std::string* out) override;
  void Finish(std::string* out) override;

 private:
  const JsonFormat format_;
  const bool json_array_;
  const bool pretty_;
  std::int64_t added_ = 0;
  std::string scratch_;  // the compact text of one document before indenting
};

}  // namespace quarry::tools::exporting
