// Extended JSON through libbson, which implements MongoDB's Extended JSON spec.
#include "bson/json.h"

#include <bson/bson.h>

#include "bson/builder.h"

namespace quarry::bson {
namespace {

enum class JsonMode { kRelaxed, kCanonical, kLegacyArray };

std::string ToJsonImpl(DocumentView view, JsonMode mode) {
  bson_t doc;
  if (!bson_init_static(&doc, reinterpret_cast<const std::uint8_t*>(view.data()), view.size())) {
    return "{}";
  }
  std::size_t length = 0;
  char* json = nullptr;
  switch (mode) {
    case JsonMode::kRelaxed:
      json = bson_as_relaxed_extended_json(&doc, &length);
      break;
    case JsonMode::kCanonical:
      json = bson_as_canonical_extended_json(&doc, &length);
      break;
    case JsonMode::kLegacyArray:
      json = bson_array_as_json(&doc, &length);
      break;
  }
  if (json == nullptr) return "{}";
  std::string out(json, length);
  bson_free(json);
  return out;
}

}  // namespace

std::string DocumentView::ToJson() const { return ToJsonImpl(*this, JsonMode::kRelaxed); }
std::string DocumentView::ToCanonicalJson() const {
  return ToJsonImpl(*this, JsonMode::kCanonical);
}
std::string DocumentView::ToArrayJson() const { return ToJsonImpl(*this, JsonMode::kLegacyArray); }

std::string ValueView::ToJson() const {
  if (!exists()) return "missing";
  DocumentBuilder b;
  b.Append("v", *this);
  bson::Document doc = std::move(b).Finish();
  std::string json = doc.view().ToJson();
  // {"v" : <value> } -> <value>
  std::size_t colon = json.find(':');
  std::size_t close = json.rfind('}');
  if (colon == std::string::npos || close == std::string::npos || close <= colon) return json;
  std::string value = json.substr(colon + 1, close - colon - 1);
  std::size_t first = value.find_first_not_of(' ');
  std::size_t last = value.find_last_not_of(' ');
  return first == std::string::npos ? value : value.substr(first, last - first + 1);
}

StatusWith<Document> FromJson(std::string_view json) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (doc == nullptr) {
    return Status(ErrorCode::kFailedToParse, std::string("invalid JSON: ") + error.message);
  }
  Document result(std::string(reinterpret_cast<const char*>(bson_get_data(doc)), doc->len));
  bson_destroy(doc);
  return result;
}

}  // namespace quarry::bson
