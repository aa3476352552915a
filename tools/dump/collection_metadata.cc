#include "tools/dump/collection_metadata.h"

#include <cstring>

namespace quarry::tools::dumping {

bool IsAuthorizationCollection(std::string_view db, std::string_view collection) {
  return db == "admin" && (collection == "system.users" || collection == "system.roles");
}

std::string MetadataJson(const CollectionMetadata& metadata) {
  // mongodump's field order: options, indexes, uuid, collectionName, type.
  bson_t doc = BSON_INITIALIZER;
  BSON_APPEND_DOCUMENT(&doc, "options", metadata.options.get());
  bson_t indexes;
  BSON_APPEND_ARRAY_BEGIN(&doc, "indexes", &indexes);
  for (std::size_t i = 0; i < metadata.indexes.size(); ++i) {
    char key_buffer[16];
    const char* key = nullptr;
    bson_uint32_to_string(static_cast<std::uint32_t>(i), &key, key_buffer, sizeof key_buffer);
    BSON_APPEND_DOCUMENT(&indexes, key, metadata.indexes[i].get());
  }
  bson_append_array_end(&doc, &indexes);
  if (!metadata.uuid.empty()) BSON_APPEND_UTF8(&doc, "uuid", metadata.uuid.c_str());
  BSON_APPEND_UTF8(&doc, "collectionName", metadata.name.c_str());
  BSON_APPEND_UTF8(&doc, "type", metadata.type.c_str());
  char* json = bson_as_canonical_extended_json(&doc, nullptr);
  std::string text = json;
  bson_free(json);
  bson_destroy(&doc);
  return text;
}

StatusWith<CollectionMetadata> ParseMetadataJson(std::string_view json, const std::string& name) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (doc == nullptr) {
    return Status(ErrorCode::kFailedToParse,
                  std::string("metadata is not Extended JSON: ") + error.message);
  }
  client::BsonPtr owner(doc);
  CollectionMetadata metadata;
  metadata.name = name;
  bson_iter_t iter;
  if (!bson_iter_init(&iter, doc))
    return Status(ErrorCode::kFailedToParse, "metadata is not a document");
  while (bson_iter_next(&iter)) {
    const std::string_view key = bson_iter_key(&iter);
    if (key == "options" && BSON_ITER_HOLDS_DOCUMENT(&iter)) {
      std::uint32_t length = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&iter, &length, &data);
      metadata.options = client::BsonPtr(bson_new_from_data(data, length));
    } else if (key == "indexes" && BSON_ITER_HOLDS_ARRAY(&iter)) {
      bson_iter_t index;
      bson_iter_recurse(&iter, &index);
      while (bson_iter_next(&index)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&index)) {
          return Status(ErrorCode::kFailedToParse,
                        "metadata lists an index that is not a document");
        }
        std::uint32_t length = 0;
        const std::uint8_t* data = nullptr;
        bson_iter_document(&index, &length, &data);
        metadata.indexes.emplace_back(bson_new_from_data(data, length));
      }
    } else if (key == "uuid" && BSON_ITER_HOLDS_UTF8(&iter)) {
      metadata.uuid = bson_iter_utf8(&iter, nullptr);
    } else if (key == "collectionName" && BSON_ITER_HOLDS_UTF8(&iter)) {
      metadata.name = bson_iter_utf8(&iter, nullptr);
    } else if (key == "type" && BSON_ITER_HOLDS_UTF8(&iter)) {
      metadata.type = bson_iter_utf8(&iter, nullptr);
    }
  }
  return metadata;
}

client::BsonPtr IndexSpecForCreate(const bson_t& dumped) {
  bson_t* spec = bson_new();
  bson_copy_to_excluding_noinit(&dumped, spec, "v", "ns", nullptr);
  return client::BsonPtr(spec);
}

bool NamespaceMatches(std::string_view pattern, std::string_view ns) {
  // Iterative glob with backtracking to the last '*'.
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < ns.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == ns[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace quarry::tools::dumping
