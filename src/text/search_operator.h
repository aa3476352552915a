// An Atlas Search query ($search's operator) and its evaluation against a search index's
// inverted index: text and autocomplete (with fuzzy matching), phrase and compound, scored as
// Lucene scores them (BM25; a compound sums the scores of its must and should clauses); an
// embeddedDocument's operator over each sub-document of an embeddedDocuments path on its own;
// wildcard, regex and ranges over the terms, and equals, range, in and exists over the values the
// index holds whole, which score 1, as does geoWithin over points; near over numbers, dates and
// points, scored by distance.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/interrupt.h"
#include "base/status.h"
#include "bson/value.h"
#include "text/full_text_mapping.h"
#include "text/geo.h"
#include "text/inverted_index.h"
#include "text/score_function.h"
#include "text/score_map.h"
#include "text/synonyms.h"

namespace quarry::text {

struct FuzzyOptions {
  int max_edits = 2;
  std::size_t prefix_length = 0;
  std::size_t max_expansions = 50;
};

// An operator's score option. kBoostByPath multiplies by the number `path` holds (`value` where
// none); kFunction replaces the score by `function`'s; kDismax (compound's) scores its should
// clauses by the best one's score plus `value` times the others'.
struct ScoreModifier {
  enum class Kind { kComputed, kBoost, kConstant, kBoostByPath, kFunction, kDismax };
  Kind kind = Kind::kComputed;
  double value = 1;  // the boost's factor, the constant, dismax's tie breaker
  std::string path;
  std::shared_ptr<const ScoreFunction> function;
};

struct SearchOperator {
  enum class Kind {
    kText,
    kPhrase,
    kAutocomplete,
    kCompound,
    kEquals,
    kRange,
    kIn,
    kExists,
    kNear,
    kWildcard,
    kRegex,
    kTermRange,  // queryString's `[a TO b]`: the terms between two bounds
    kEmbeddedDocument,
    kGeoWithin,
    kMoreLikeThis,
    kAllDocuments,  // queryString's `*:*`: every document, scored 1
  };
  // embeddedDocument: how a document's score comes from its matching sub-documents' scores.
  enum class EmbeddedAggregate { kSum, kMaximum, kMinimum, kMean };

  Kind kind = Kind::kText;
  // text, phrase, wildcard and regex (the patterns)
  std::vector<std::string> queries;
  std::vector<std::string> paths;  // a path may hold '*' wildcards ({wildcard: "title.*"})
  // text's matchCriteria: none given (with synonyms, the query is then a phrase), any or all.
  enum class MatchCriteria { kUnset, kAny, kAll };
  MatchCriteria match_criteria = MatchCriteria::kUnset;
  std::string synonyms;  // text: the synonym mapping that expands the query (empty: none)
  std::optional<FuzzyOptions> fuzzy;
  std::uint32_t slop = 0;   // phrase
  bool sequential = false;  // autocomplete's tokenOrder "sequential": the words in order
  // compound
  std::vector<SearchOperator> must, must_not, should, filter;
  std::size_t minimum_should_match = 0;
  // embeddedDocument: its operator (one), which each sub-document at paths[0] must match alone.
  std::vector<SearchOperator> inner;
  EmbeddedAggregate embedded_aggregate = EmbeddedAggregate::kSum;
  bool allow_analyzed_field = false;  // wildcard and regex: terms an analyzer made may match
  // regex: the pattern passes the analyzer's normalizing filters first, as queryString's
  // `/re/` does in Lucene (a wildcard on an analyzed field always does); text (queryString's
  // fuzzy `word~`): the query is the one term those filters make of it, not its tokens.
  bool normalize_pattern = false;
  // equals and in: the values (an array); range: {gt|gte: <value>, lt|lte: <value>}; term range:
  // the same with strings, either side absent when open; near: {origin: <number or date>}.
  bson::Document values;
  double pivot = 1;  // near: the distance at which the score is one half (meters for geo)
  std::shared_ptr<const GeoRegion> geo_region;  // geoWithin
  std::vector<bson::Document> like;             // moreLikeThis: the documents to resemble
  // queryString's clauses: a text or phrase clause whose query the analyzer reduces to no term
  // (stop words), or a group of only such clauses, is left out of its compound, as Lucene's
  // parser leaves it out.
  bool absent_without_terms = false;

  ScoreModifier score;
};

// Parses the operator `name` (the key of $search's document that names one) given `spec`.
// Errors: BadValue for a malformed operator or an unknown one, NotImplemented for operators and
// options Atlas has and Quarry does not yet (each names itself).
StatusWith<SearchOperator> ParseSearchOperator(std::string_view name, bson::ValueView spec);

// An operator's `path`: a field name, {value}, {wildcard: <pattern>}, or an array of them; with
// `multi_allowed`, also {value, multi} (as MultiPath). Errors name `at`.
StatusWith<std::vector<std::string>> ParseSearchPaths(bson::ValueView value, const std::string& at,
                                                      bool multi_allowed = false);

// Whether `name` is the name of a $search operator (known to Atlas, implemented or not).
bool IsSearchOperatorName(std::string_view name);

// Whether `path` is one `pattern` names: '*' matches any run of characters, dots too.
bool PathMatchesPattern(std::string_view pattern, std::string_view path);

// label -> score of each document `op` matches. A long evaluation checks `interrupt` (null:
// none) as it goes and fails with its error once it is killed or past its deadline.
using SearchScores = ScoreMap;
// `synonyms` holds the mappings the operator names (the caller reads their source collections);
// naming another one fails.
StatusWith<SearchScores> EvaluateSearch(const SearchOperator& op, const InvertedIndex& index,
                                        const FullTextMapping& mapping,
                                        const Interrupt* interrupt = nullptr,
                                        const SynonymMaps* synonyms = nullptr);

// The synonym mappings `op` names, each once.
std::vector<std::string> SynonymMappingsOf(const SearchOperator& op);

}  // namespace quarry::text
