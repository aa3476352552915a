// The built-in analyzers of Atlas Search indexes, by the names an index definition gives them
// ("lucene.standard", "lucene.english", ...): what a string field's value, and the text of a
// query on it, become as terms at positions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "text/language.h"

namespace quarry::text {

struct CustomAnalysis;  // custom_analyzer.h

// A token of an analyzed query text: its term, its position, and how many positions it spans
// (more than 1 for a shingle longer than the shortest, which makes the tokens a graph).
struct QueryToken {
  std::string term;
  std::uint32_t position = 0;
  std::uint32_t length = 1;
};

class SearchAnalyzer {
 public:
  enum class Tokenizer {
    kStandard,    // Unicode word boundaries (UAX #29), as Lucene's StandardTokenizer
    kLetters,     // runs of letters
    kWhitespace,  // runs of anything but white space
    kKeyword,     // the whole value as one term
  };

  // The analyzer `name` names, or null when Quarry does not have it.
  static const SearchAnalyzer* Find(std::string_view name);
  static const SearchAnalyzer& Standard();

  // Calls `on_term` with each term of `value` and its position (0, 1, ...; a dropped stop word
  // leaves its position unused, so phrases do not match across it).
  void Analyze(
      std::string_view value,
      const std::function<void(std::string_view term, std::uint32_t position)>& on_term) const;

  // Analyze, also giving the bytes of `value` each term came from ([start, end)).
  void AnalyzeWithOffsets(
      std::string_view value,
      const std::function<void(std::string_view term, std::uint32_t position, std::size_t start,
                               std::size_t end)>& on_term) const;

  // The tokens of a query text, in the order the analysis makes them.
  std::vector<QueryToken> QueryTokens(std::string_view text) const;

  // `text` as the analyzer's character and normalizing token filters leave it, untokenized
  // (Lucene's Analyzer.normalize): how a wildcard pattern meets an analyzed field's terms.
  std::string Normalize(std::string_view text) const;

  std::string_view name() const { return name_; }

  constexpr SearchAnalyzer(std::string_view name, Tokenizer tokenizer, bool lowercase,
                           const Language* language, bool drop_possessives)
      : name_(name),
        tokenizer_(tokenizer),
        lowercase_(lowercase),
        language_(language),
        drop_possessives_(drop_possessives) {}
  // A custom analyzer (an index definition's `analyzers`): `analysis` does the work; it and
  // `name` outlive the analyzer.
  SearchAnalyzer(std::string_view name, const CustomAnalysis* analysis)
      : name_(name),
        tokenizer_(Tokenizer::kKeyword),
        lowercase_(false),
        language_(nullptr),
        drop_possessives_(false),
        custom_(analysis) {}

 private:
  std::string_view name_;
  Tokenizer tokenizer_;
  bool lowercase_;
  // Stop words and stemmer of a language analyzer; null: neither.
  const Language* language_;
  bool drop_possessives_;  // "dog's" -> "dog" (English)
  const CustomAnalysis* custom_ = nullptr;
};

// The tokenizers of the built-in analyzers, which custom analyzers name too: each token is a
// view into `value`; a word longer than `max_token_length` characters comes in pieces.
void ForEachStandardToken(std::string_view value, std::size_t max_token_length,
                          const std::function<void(std::string_view)>& on_token);
void ForEachWhitespaceToken(std::string_view value, std::size_t max_token_length,
                            const std::function<void(std::string_view)>& on_token);

// The code points of UTF-8 `s`, each as its bytes (an invalid byte is one of its own).
std::vector<std::string_view> CharactersOf(std::string_view s);

// "dog's" -> "dog", with any of the apostrophes Lucene's English possessive filter knows.
std::string_view WithoutPossessive(std::string_view word);

// `word` with each code point lowercased on its own, as Lucene's lowercase filter does.
std::string LowercaseCodePoints(std::string_view word);

// What an error about an unknown analyzer adds: the analyzers Quarry has.
inline constexpr std::string_view kSupportedAnalyzers =
    " (Quarry has lucene.standard, lucene.simple, lucene.whitespace, lucene.keyword and the "
    "language analyzers lucene.danish, lucene.dutch, lucene.english, lucene.finnish, "
    "lucene.french, lucene.german, lucene.hungarian, lucene.italian, lucene.norwegian, "
    "lucene.portuguese, lucene.romanian, lucene.russian, lucene.spanish, lucene.swedish and "
    "lucene.turkish)";

}  // namespace quarry::text
