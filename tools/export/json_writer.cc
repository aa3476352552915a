// JsonFormatter over libbson's Extended JSON writers.
#include "tools/export/json_writer.h"

#include <string_view>

#include "tools/export/json_text.h"

namespace quarry::tools::exporting {

void AppendDocumentJson(const bson_t& document, JsonFormat format, std::string* out) {
  size_t length = 0;
  char* json = format == JsonFormat::kCanonical
                   ? bson_as_canonical_extended_json(&document, &length)
                   : bson_as_relaxed_extended_json(&document, &length);
  // libbson returns null only for a document it cannot walk, which the driver has validated.
  if (json == nullptr) return;
  AppendCompactJson(std::string_view(json, length), out);
  bson_free(json);
}

void JsonFormatter::Begin(std::string* out) {
  if (json_array_) out->push_back('[');
}

void JsonFormatter::Add(const bson_t& document, std::string* out) {
  if (added_ > 0) {
    if (json_array_) out->push_back(',');
    if (pretty_) out->push_back('\n');
  }
  ++added_;
  if (pretty_) {
    scratch_.clear();
    AppendDocumentJson(document, format_, &scratch_);
    AppendIndentedJson(scratch_, out);
  } else {
    AppendDocumentJson(document, format_, out);
    if (!json_array_) out->push_back('\n');
  }
}

void JsonFormatter::Finish(std::string* out) {
  if (json_array_) {
    out->append("]\n");
  } else if (pretty_ && added_ > 0) {
    out->push_back('\n');
  }
}

}  // namespace quarry::tools::exporting
