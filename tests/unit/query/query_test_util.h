// Helpers for query/ unit tests: documents from Extended JSON.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "bson/builder.h"
#include "bson/json.h"
#include "bson/value.h"

namespace quarry::query::testing {

// Copies `doc`, renaming keys that start with '%' to start with '$' instead, at every level.
// Extended JSON parsers read {"$type": ...}, {"$regex": ...} and {"$options": ...} as legacy
// BSON values, so tests spell those operators "%type", "%regex", "%options".
inline void AppendRenamed(bson::DocumentView doc, bool is_array, bson::DocumentBuilder* out) {
  for (const bson::Element& element : doc) {
    std::string key(element.key);
    if (!is_array && !key.empty() && key[0] == '%') key[0] = '$';
    if (element.value.type() == bson::Type::kDocument) {
      out->OpenDocument(key);
      AppendRenamed(element.value.Document(), false, out);
      out->Close();
    } else if (element.value.type() == bson::Type::kArray) {
      out->OpenArray(key);
      AppendRenamed(element.value.Document(), true, out);
      out->Close();
    } else {
      out->Append(key, element.value);
    }
  }
}

// The document for `json` (Extended JSON, with "%op" keys meaning "$op"); fails the test on
// bad JSON.
inline bson::Document Doc(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << json;
  if (!doc.ok()) return bson::Document();
  bson::DocumentBuilder builder;
  AppendRenamed(doc.value().view(), false, &builder);
  return std::move(builder).Finish();
}

}  // namespace quarry::query::testing
