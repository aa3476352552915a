// Helpers for the pipeline tests: run a JSON pipeline over JSON documents and compare the output
// exactly.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "query/pipeline/pipeline.h"
#include "query_test_util.h"

namespace quarry::query::testing {

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
  return ::testing::AssertionFailure()
         << "expected " << CanonDocs(expected) << "\n     got " << CanonDocs(out.value());
}

inline ErrorCode PipelineErrorCode(std::string_view pipeline_json, std::string_view docs_json,
                                   PipelineContext ctx = {}) {
  StatusWith<std::vector<bson::Document>> out =
      RunPipeline(pipeline_json, docs_json, std::move(ctx));
  return out.ok() ? ErrorCode::kOk : out.status().code();
}

}  // namespace quarry::query::testing
