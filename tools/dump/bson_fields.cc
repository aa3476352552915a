#include "tools/dump/bson_fields.h"

namespace quarry::tools::dumping {

bool SubDocument(const bson_t& parent, const char* key, bson_t* out) {
  bson_iter_t iter;
  if (!bson_iter_init_find(&iter, &parent, key) || !BSON_ITER_HOLDS_DOCUMENT(&iter)) return false;
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_document(&iter, &length, &data);
  return bson_init_static(out, data, length);
}

std::string Utf8Field(const bson_t& parent, const char* key) {
  bson_iter_t iter;
  if (bson_iter_init_find(&iter, &parent, key) && BSON_ITER_HOLDS_UTF8(&iter))
    return bson_iter_utf8(&iter, nullptr);
  return {};
}

bool HasUtf8Field(const bson_t& parent, const char* key) {
  bson_iter_t iter;
  return bson_iter_init_find(&iter, &parent, key) && BSON_ITER_HOLDS_UTF8(&iter);
}

}  // namespace quarry::tools::dumping
