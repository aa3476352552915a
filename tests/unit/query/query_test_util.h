// Helpers for query/ unit tests: documents and values from Extended JSON, and exact comparisons
// (type and bytes) against it.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "bson/builder.h"
#include "bson/compare.h"
#include "bson/json.h"
#include "bson/value.h"
#include "query/value/value.h"

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

// The value of Extended JSON `value_json` (any value, not only documents).
inline Value V(std::string_view value_json) {
  bson::Document doc = Doc("{\"v\": " + std::string(value_json) + "}");
  return Value::Copy(doc.Get("v"));
}

// Canonical Extended JSON of a value, which shows its exact type.
inline std::string Canon(const Value& v) {
  if (v.missing()) return "missing";
  bson::DocumentBuilder b;
  b.Append("v", v.view());
  return std::move(b).Finish().view().ToCanonicalJson();
}

// True when `actual` has exactly the type and bytes of Extended JSON `expected_json`.
inline ::testing::AssertionResult SameValue(const Value& actual, std::string_view expected_json) {
  if (expected_json == "missing") {
    if (actual.missing()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected missing, got " << Canon(actual);
  }
  Value expected = V(expected_json);
  if (BinaryEqual(actual.view(), expected.view())) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << Canon(expected) << ", got " << Canon(actual);
}

// True when document `actual` has exactly the bytes of `expected_json` (field order and types).
inline ::testing::AssertionResult SameDoc(bson::DocumentView actual,
                                          std::string_view expected_json) {
  bson::Document expected = Doc(expected_json);
  if (expected.bytes() == actual.bytes()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected.view().ToCanonicalJson()
                                       << "\n     got " << actual.ToCanonicalJson();
}

}  // namespace quarry::query::testing
