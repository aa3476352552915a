// Helpers shared by the import tests: a FILE* over a string, and a document's canonical
// Extended JSON as libbson writes it.
#pragma once

#include <bson/bson.h>

#include <cstdio>
#include <memory>
#include <string>

namespace quarry::tools::importing::testing {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// A stream reading `text` (kept alive by the caller).
inline FilePtr ReadString(const std::string& text) {
  return FilePtr(fmemopen(const_cast<char*>(text.data()), text.size(), "r"));
}

inline std::string Canonical(const bson_t* doc) {
  char* json = bson_as_canonical_extended_json(doc, nullptr);
  std::string text = json;
  bson_free(json);
  return text;
}

}  // namespace quarry::tools::importing::testing
