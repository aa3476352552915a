// Custom analyzers of an Atlas Search index (the definition's `analyzers`): character filters,
// one tokenizer and token filters, run in that order as Lucene chains them. Offsets of the
// terms point into the value as it was before the character filters, so highlights still mark
// the right text.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/search_analyzer.h"

namespace quarry::text {

class FindPattern;            // a regular expression found anywhere in a text (custom_analyzer.cc)
struct WordDelimiterOptions;  // word_delimiter.h

struct CharFilter {
  enum class Kind { kHtmlStrip, kIcuNormalize, kMapping, kPersian };
  Kind kind = Kind::kMapping;
  std::vector<std::string> ignored_tags;                      // htmlStrip: tags kept as written
  std::vector<std::pair<std::string, std::string>> mappings;  // mapping: the longest first
};

struct AnalysisTokenizer {
  enum class Kind {
    kStandard,
    kWhitespace,
    kKeyword,
    kEdgeGram,
    kNGram,
    kRegexSplit,
    kRegexCaptureGroup,
  };
  Kind kind = Kind::kStandard;
  std::size_t max_token_length = 255;  // standard, whitespace
  std::size_t min_gram = 1, max_gram = 2;
  std::shared_ptr<const FindPattern> pattern;  // regexSplit, regexCaptureGroup
  int group = 0;                               // regexCaptureGroup
};

struct TokenFilter {
  enum class Kind {
    kLowercase,
    kAsciiFolding,
    kStopword,
    kSnowballStemming,
    kEnglishPossessive,
    kLength,
    kTrim,
    kReverse,
    kEdgeGram,
    kNGram,
    kRegex,
    kIcuFolding,
    kIcuNormalizer,
    kFlattenGraph,
    kKeywordRepeat,
    kRemoveDuplicates,
    kLimitTokenCount,
    kEnglishMinimalStemming,
    kSpanishPluralStemming,
    kShingle,
    kWordDelimiterGraph,
  };
  Kind kind = Kind::kLowercase;
  // asciiFolding's originalTokens "include"; edgeGram's and nGram's termNotInBounds "include".
  bool keep_original = false;
  std::vector<std::string> stop_words;  // lowercased when ignore_case
  bool ignore_case = true;
  const char* stemmer = nullptr;  // libstemmer's own name of the algorithm
  // length: UTF-16 units; edgeGram, nGram: grams' characters; shingle: shingles' tokens
  std::size_t min = 0, max = 255;
  std::size_t max_token_count = 0;                             // limitTokenCount
  std::shared_ptr<const WordDelimiterOptions> word_delimiter;  // wordDelimiterGraph
  std::shared_ptr<const FindPattern> pattern;                  // regex
  std::string replacement;
  bool replace_all = true;
  int normalization_form = 0;  // icuNormalizer: 0 nfc, 1 nfd, 2 nfkc, 3 nfkd
};

struct CustomAnalysis {
  std::vector<CharFilter> char_filters;
  AnalysisTokenizer tokenizer;
  std::vector<TokenFilter> token_filters;
};

// A custom analyzer: its name, its analysis, and the SearchAnalyzer that runs it (which points
// into this object, so it is neither copied nor moved).
class CustomAnalyzer {
 public:
  CustomAnalyzer(std::string name, CustomAnalysis analysis)
      : name_(std::move(name)), analysis_(std::move(analysis)), analyzer_(name_, &analysis_) {}
  CustomAnalyzer(const CustomAnalyzer&) = delete;
  CustomAnalyzer& operator=(const CustomAnalyzer&) = delete;

  const std::string& name() const { return name_; }
  const SearchAnalyzer& analyzer() const { return analyzer_; }

 private:
  std::string name_;
  CustomAnalysis analysis_;
  SearchAnalyzer analyzer_;
};

// One element of a definition's `analyzers` ({name, charFilters, tokenizer, tokenFilters}),
// `at` naming it in errors. Errors: BadValue for what Atlas refuses too, NotImplemented for the
// tokenizers and filters Atlas has and Quarry does not (each named).
StatusWith<std::shared_ptr<const CustomAnalyzer>> ParseCustomAnalyzer(bson::ValueView spec,
                                                                      const std::string& at);

// Calls `on_term` with each term `analysis` makes of `value`, its position and the bytes of
// `value` it came from.
void RunCustomAnalysis(const CustomAnalysis& analysis, std::string_view value,
                       const std::function<void(std::string_view term, std::uint32_t position,
                                                std::size_t start, std::size_t end)>& on_term);

// The tokens `analysis` makes of a query text, with the positions each spans.
std::vector<QueryToken> CustomQueryTokens(const CustomAnalysis& analysis, std::string_view text);

// `text` through `analysis`'s character filters and the token filters that normalize a term
// (lowercase, asciiFolding, icuFolding, icuNormalizer), as one term: no tokenizer, no stemming.
std::string NormalizeCustom(const CustomAnalysis& analysis, std::string_view text);

}  // namespace quarry::text
