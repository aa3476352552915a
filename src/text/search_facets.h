// $searchMeta's facet collector: the matches of an operator (or every document) counted by the
// values they hold whole at some paths: by each distinct string (a "string" facet over a token
// field), or into ranges between boundaries (a "number" or "date" facet).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/full_text_mapping.h"
#include "text/inverted_index.h"
#include "text/search_operator.h"

namespace quarry::text {

struct SearchFacet {
  enum class Type { kString, kNumber, kDate };
  std::string name;
  Type type = Type::kString;
  std::string path;
  std::size_t num_buckets = 10;               // string: the most frequent values kept
  bson::Document boundaries;                  // number and date: an array, ascending
  std::optional<std::string> default_bucket;  // number and date: the bucket of values outside
};

struct FacetCollector {
  std::optional<SearchOperator> op;  // none: every document of the index
  std::vector<SearchFacet> facets;
};

// facet: {operator: {<operator>: ...}, facets: {<name>: {type, path, ...}, ...}}. Errors:
// BadValue, naming the option.
StatusWith<FacetCollector> ParseFacetCollector(bson::ValueView spec);

// OK when `mapping` holds each facet's path as the facet needs (tokens for a string facet,
// numbers or dates for the others); BadValue naming the first that it does not.
Status CheckFacetsMapped(const std::vector<SearchFacet>& facets, const FullTextMapping& mapping);

// {<name>: {buckets: [{_id: <value or boundary>, count: <documents>}, ...]}, ...} over
// `labels`: a string facet's values most frequent first (ties in value order), a range facet's
// buckets in boundary order, each with the documents holding a value in [boundary, next), then
// the default bucket, when asked for, with those holding a value outside every range.
bson::Document CountFacets(const std::vector<SearchFacet>& facets, const InvertedIndex& index,
                           const std::vector<std::uint32_t>& labels);

// CountFacets of no documents: what an index that does not exist yet counts.
bson::Document EmptyFacets(const std::vector<SearchFacet>& facets);

}  // namespace quarry::text
