// The definition of an Atlas search index, as createSearchIndexes and updateSearchIndex give
// it, checked and reduced to what the in-memory vector and text indexes need. Two forms are
// accepted:
//   type "vectorSearch": {fields: [{type: "vector", path, numDimensions, similarity, ...},
//                                  {type: "filter", path}, ...]}
//   type "search": {analyzer, searchAnalyzer, mappings: {dynamic, fields: {<name>:
//                   {type: "string", analyzer, searchAnalyzer} | {type: "document", fields} |
//                   {type: "knnVector", dimensions, similarity} | {type: "token" | ...}}}}
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/full_text_mapping.h"
#include "vector/vector_codec.h"

namespace quarry::vector {

struct VectorFieldDefinition {
  std::string path;
  std::size_t dimensions = 0;
  std::string similarity;                 // "euclidean", "cosine" or "dotProduct"
  bool exact_only = false;                // indexingMethod "flat": every query scans
  std::size_t max_edges = 16;             // hnswOptions.maxEdges
  std::size_t num_edge_candidates = 100;  // hnswOptions.numEdgeCandidates
  Quantization quantization = Quantization::kNone;
};

struct SearchIndexDefinition {
  std::vector<VectorFieldDefinition> vectors;
  std::vector<std::string> filter_paths;
  // Empty, or the array of sub-documents whose elements are indexed each on its own (every
  // vector path lies under it); the documents a search returns are their parents.
  std::string nested_root;
  // What a "search" index holds for $search: its strings (string fields or dynamic ones) and
  // whole values (token, number, date, boolean, objectId, uuid fields); empty when it maps
  // only vectors and their filters.
  std::optional<text::FullTextMapping> full_text;
  // What `$search`'s returnStoredSource returns of a document, as a find projection ({}: all
  // of it); none when the definition stores nothing (storedSource false or absent).
  std::optional<bson::Document> stored_source;

  const VectorFieldDefinition* FindVector(std::string_view path) const;
  bool IsFilterPath(std::string_view path) const;
  // Whether `path` lies under nested_root (false without one).
  bool IsUnderNestedRoot(std::string_view path) const;
  // The filter paths under nested_root, relative to an element ("sections.page" -> "page").
  std::vector<std::string> ElementFilterPaths() const;
  // The filter paths of the parent document: all of them without a nested root.
  std::vector<std::string> ParentFilterPaths() const;
};

// Checks `definition` for an index of `type` ("vectorSearch" or "search"). Errors are BadValue
// naming the offending field, or NotImplemented for what Quarry does not do yet (custom
// analyzers, synonyms, string options such as multi).
StatusWith<SearchIndexDefinition> ParseSearchIndexDefinition(std::string_view type,
                                                             bson::DocumentView definition);

}  // namespace quarry::vector
