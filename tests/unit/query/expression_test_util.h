// Helpers for the expression, update and pipeline tests: evaluate JSON expressions and compare
// values exactly (type and bytes) against Extended JSON.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "query/expression/expression.h"
#include "query/pipeline/pipeline.h"
#include "query/value/value.h"
#include "query_test_util.h"

namespace quarry::query::testing {

// The value of Extended JSON `value_json` (any value, not only documents).
inline Value V(std::string_view value_json) {
  bson::Document doc = Doc("{\"v\": " + std::string(value_json) + "}");
  return Value::Copy(doc.Get("v"));
}

inline StatusWith<Value> TryEval(std::string_view expr_json, std::string_view doc_json = "{}") {
  bson::Document spec = Doc("{\"v\": " + std::string(expr_json) + "}");
  ParseContext parse;
  StatusWith<ExpressionPtr> expr = Expression::Parse(spec.Get("v"), parse);
  if (!expr.ok()) return expr.status();
  bson::Document doc = Doc(doc_json);
  EvalContext ctx;
  return EvaluateOn(*expr.value(), doc, ctx);
}

// The error code of evaluating (or parsing) an expression; kOk when it succeeds.
inline ErrorCode EvalErrorCode(std::string_view expr_json, std::string_view doc_json = "{}") {
  StatusWith<Value> v = TryEval(expr_json, doc_json);
  return v.ok() ? ErrorCode::kOk : v.status().code();
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
  return ::testing::AssertionFailure() << "expected " << Canon(expected) << ", got "
                                       << Canon(actual);
}

inline ::testing::AssertionResult Evaluates(std::string_view expr_json, std::string_view doc_json,
                                            std::string_view expected_json) {
  StatusWith<Value> v = TryEval(expr_json, doc_json);
  if (!v.ok()) {
    return ::testing::AssertionFailure() << expr_json << " failed: " << v.status().ToString();
  }
  return SameValue(v.value(), expected_json) << " for " << expr_json;
}

// True when document `actual` has exactly the bytes of `expected_json` (field order and types).
inline ::testing::AssertionResult SameDoc(bson::DocumentView actual,
                                          std::string_view expected_json) {
  bson::Document expected = Doc(expected_json);
  if (expected.bytes() == actual.bytes()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected.view().ToCanonicalJson()
                                       << "\n     got " << actual.ToCanonicalJson();
}

// Runs a pipeline (JSON array) over documents (JSON array of objects) and returns the output.
inline StatusWith<std::vector<bson::Document>> RunPipeline(std::string_view pipeline_json,
                                                           std::string_view docs_json,
                                                           PipelineContext ctx = {}) {
  bson::Document stages = Doc("{\"p\": " + std::string(pipeline_json) + "}");
  bson::Document input = Doc("{\"d\": " + std::string(docs_json) + "}");
  StatusWith<Pipeline> pipeline = Pipeline::Parse(stages.Get("p").Document(), std::move(ctx));
  if (!pipeline.ok()) return pipeline.status();
  std::vector<bson::Document> docs;
  for (const bson::Element& e : input.Get("d").Document()) {
    docs.push_back(bson::Document::Copy(e.value.Document()));
  }
  StatusWith<std::unique_ptr<DocumentStream>> stream =
      pipeline.value().Run(StreamOfDocuments(std::move(docs)));
  if (!stream.ok()) return stream.status();
  std::vector<bson::Document> out;
  while (true) {
    bson::Document doc;
    StatusWith<bool> more = stream.value()->Next(&doc);
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    out.push_back(std::move(doc));
  }
  return out;
}

// The output documents as one JSON array in canonical form, for compact comparisons.
inline std::string CanonDocs(const std::vector<bson::Document>& docs) {
  std::string out = "[";
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (i > 0) out += ", ";
    out += docs[i].view().ToCanonicalJson();
  }
  return out + "]";
}

// True when the pipeline's output equals `expected_json` (a JSON array of documents), exactly.
inline ::testing::AssertionResult Produces(std::string_view pipeline_json,
                                           std::string_view docs_json,
                                           std::string_view expected_json,
                                           PipelineContext ctx = {}) {
  StatusWith<std::vector<bson::Document>> out =
      RunPipeline(pipeline_json, docs_json, std::move(ctx));
  if (!out.ok()) {
    return ::testing::AssertionFailure() << pipeline_json << " failed: " << out.status().ToString();
  }
  bson::Document expected_holder = Doc("{\"d\": " + std::string(expected_json) + "}");
  std::vector<bson::Document> expected;
  for (const bson::Element& e : expected_holder.Get("d").Document()) {
    expected.push_back(bson::Document::Copy(e.value.Document()));
  }
  bool same = expected.size() == out.value().size();
  for (std::size_t i = 0; same && i < expected.size(); ++i) {
    same = expected[i].bytes() == out.value()[i].bytes();
  }
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << CanonDocs(expected) << "\n     got "
                                       << CanonDocs(out.value());
}

inline ErrorCode PipelineErrorCode(std::string_view pipeline_json, std::string_view docs_json,
                                   PipelineContext ctx = {}) {
  StatusWith<std::vector<bson::Document>> out =
      RunPipeline(pipeline_json, docs_json, std::move(ctx));
  return out.ok() ? ErrorCode::kOk : out.status().code();
}

}  // namespace quarry::query::testing

// ---- updates ----
#include "query/match/matcher.h"
#include "query/update/update.h"

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
