// Helpers for the update tests: apply a JSON update to a JSON document and compare the result
// exactly.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "query/match/matcher.h"
#include "query/update/update.h"
#include "query_test_util.h"

namespace quarry::query::testing {

struct UpdateRun {
  Status status;
  bson::Document doc;
  bool modified = false;
};

// Parses `update_json` (a document or an array) and applies it to `doc_json`.
inline UpdateRun RunUpdate(std::string_view update_json, std::string_view doc_json,
                           std::vector<std::string> array_filters_json = {},
                           MatchDetails details = {}, bool is_insert = false) {
  UpdateRun run;
  bson::Document update = Doc("{\"u\": " + std::string(update_json) + "}");
  std::vector<bson::Document> filters;
  for (const std::string& f : array_filters_json) filters.push_back(Doc(f));
  UpdateOptions options;
  for (const bson::Document& f : filters) options.array_filters.push_back(f.view());
  StatusWith<UpdateSpec> spec = UpdateSpec::Parse(update.Get("u"), options);
  if (!spec.ok()) {
    run.status = spec.status();
    return run;
  }
  bson::Document doc = Doc(doc_json);
  StatusWith<UpdateResult> result = spec.value().Apply(doc, details, is_insert);
  if (!result.ok()) {
    run.status = result.status();
    return run;
  }
  run.doc = std::move(result.value().new_doc);
  run.modified = result.value().modified;
  return run;
}

// True when the update turns `doc_json` into exactly `expected_json`.
inline ::testing::AssertionResult Updates(std::string_view update_json, std::string_view doc_json,
                                          std::string_view expected_json,
                                          std::vector<std::string> array_filters_json = {}) {
  UpdateRun run = RunUpdate(update_json, doc_json, std::move(array_filters_json));
  if (!run.status.ok()) {
    return ::testing::AssertionFailure() << update_json << " failed: " << run.status.ToString();
  }
  return SameDoc(run.doc, expected_json) << " for " << update_json;
}

inline ErrorCode UpdateErrorCode(std::string_view update_json, std::string_view doc_json,
                                 std::vector<std::string> array_filters_json = {}) {
  return RunUpdate(update_json, doc_json, std::move(array_filters_json)).status.code();
}

}  // namespace quarry::query::testing
