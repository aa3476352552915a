// A $text search: {$text: {$search, $language, $caseSensitive, $diacriticSensitive}} parsed,
// and its search string read as mongod reads it: terms, "phrases" and -negations.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/analyzer.h"
#include "text/index_spec.h"
#include "text/language.h"

namespace quarry::text {

struct TextSearch {
  std::string search;
  std::optional<std::string> language;  // $language; none: the index's default language
  Sensitivity sensitivity;

  // Parses $text's argument, with mongod's errors for a wrong shape.
  static StatusWith<TextSearch> Parse(bson::ValueView argument);
};

// A search read in its language.
struct AnalyzedSearch {
  const Language* language = nullptr;
  Sensitivity sensitivity;
  // The terms an index is read for: the positive terms and those of positive phrases,
  // case-folded and stripped whatever the sensitivity (the index holds them so).
  std::set<std::string, std::less<>> index_terms;
  // The terms a document must hold one of (only checked when the search is case or diacritic
  // sensitive), and those it must hold none of, normalized by the search's sensitivity.
  std::set<std::string, std::less<>> positive_terms;
  std::set<std::string, std::less<>> negated_terms;
  std::vector<std::string> positive_phrases;  // as written, each a substring to find
  std::vector<std::string> negated_phrases;
};

// Reads `search` in its $language, or else `default_language` (an index's). Fails with 17262
// for an unsupported $language.
StatusWith<AnalyzedSearch> Analyze(const TextSearch& search, const Language& default_language);

// Whether `doc` passes what the index cannot decide: it holds no negated term, holds every
// positive phrase and no negated one (in the strings `index` holds, normalized like the search)
// and, for a case or diacritic sensitive search, one of the positive terms as written.
StatusWith<bool> MatchesDocument(const AnalyzedSearch& search, const TextIndexSpec& index,
                                 bson::DocumentView doc);

}  // namespace quarry::text
