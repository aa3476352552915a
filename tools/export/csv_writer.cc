// CsvFormatter.
#include "tools/export/csv_writer.h"

#include "tools/export/csv_value.h"
#include "tools/export/field_path.h"

namespace quarry::tools::exporting {

void AppendCsvField(std::string_view field, std::string* out) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(field);
    return;
  }
  out->push_back('"');
  for (char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

void CsvFormatter::Begin(std::string* out) {
  if (!header_line_) return;
  for (std::size_t field_idx = 0; field_idx < fields_.size(); ++field_idx) {
    if (field_idx > 0) out->push_back(',');
    AppendCsvField(fields_[field_idx], out);
  }
  out->push_back('\n');
}

void CsvFormatter::Add(const bson_t& document, std::string* out) {
  for (std::size_t field_idx = 0; field_idx < fields_.size(); ++field_idx) {
    if (field_idx > 0) out->push_back(',');
    bson_iter_t value;
    if (!FindDottedPath(document, fields_[field_idx], &value)) continue;
    cell_.clear();
    AppendCsvValue(value, &cell_);
    AppendCsvField(cell_, out);
  }
  out->push_back('\n');
}

}  // namespace quarry::tools::exporting
