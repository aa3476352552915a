// A text index's specification: which string fields it holds, with what weights, in which
// language, and the scores of a document's terms by mongod's formula.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "text/language.h"

namespace quarry::text {

// The key pattern every text index holds, whatever fields it was asked for.
inline constexpr std::string_view kTermField = "_fts";
inline constexpr std::string_view kScoreField = "_ftsx";

// A document's terms and their scores in one text index.
using TermScores = std::map<std::string, double, std::less<>>;

class TextIndexSpec {
 public:
  // Whether `key` (a createIndexes key pattern) asks for a text index: a field whose value is
  // "text", as {title: "text"} or the stored form {_fts: "text", _ftsx: 1}.
  static bool IsTextKeyPattern(bson::DocumentView key);

  // The spec the catalog keeps for a createIndexes spec of a text index, as mongod stores it:
  // the key {_fts: "text", _ftsx: 1}, the other options as given, then `weights` (every text
  // field of the key with weight 1, or the given weight; sorted by path), `default_language`
  // ("english"), `language_override` ("language") and `textIndexVersion` (3). Fails with
  // CannotCreateIndex (67) for what Quarry cannot index (compound text indexes, versions before
  // 3, a collation, unique), and with mongod's errors for bad weights and languages.
  static StatusWith<bson::Document> Normalize(bson::DocumentView spec);

  // Parses a spec Normalize made.
  static StatusWith<TextIndexSpec> Parse(bson::DocumentView spec);

  const Language& default_language() const { return *default_language_; }
  const std::string& language_override() const { return language_override_; }

  // Calls `on_text` with each string `doc` holds in an indexed field (strings in arrays
  // included, in document order), its weight and the language it is in: the nearest enclosing
  // document's language_override field, else the index's default language. A string is held
  // when its path is weighted, or by a wildcard index; an array's elements take its path. Fails
  // with 17261 for a language_override field that is not a string and 17262 for an unsupported
  // language.
  Status ForEachText(bson::DocumentView doc,
                     const std::function<void(std::string_view raw, double weight,
                                              const Language& language)>& on_text) const;

  // The score of each term of `doc` (ForEachText's strings), mongod's: per string, a term seen
  // n times among its k terms adds weight × (1 + 1/2 + ... + 1/2^(n-1)) × (0.5 + 0.5 × n / k),
  // × 1.1 when the string is the term itself.
  StatusWith<TermScores> ScoreDocument(bson::DocumentView doc) const;

 private:
  TextIndexSpec() = default;

  // The weight of the string at `path`, or nullopt when the index does not hold it.
  const double* WeightOf(std::string_view path) const;
  // Whether a field under `path` may be held.
  bool HoldsBelow(std::string_view path) const;
  Status Walk(bson::DocumentView doc, std::string_view prefix, const Language* parent,
              const std::function<void(std::string_view, double, const Language&)>& on_text) const;

  std::map<std::string, double, std::less<>> weights_;
  bool wildcard_ = false;
  const Language* default_language_ = nullptr;
  std::string language_override_;
};

}  // namespace quarry::text
