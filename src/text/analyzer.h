// Words of a text as text search sees them (mongod's Unicode tokenizer, text index version 3):
// split at delimiters, lowercased, stop words dropped, stemmed, stripped of diacritics; a
// search may keep case or diacritics.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "text/language.h"

namespace quarry::text {

struct Sensitivity {
  bool case_sensitive = false;
  bool diacritic_sensitive = false;
};

// Calls `on_token` with each token of `raw` in order: its bytes lowercased (Unicode's simple case
// folding) and as written. A delimiter is a code point with Unicode's White_Space, Dash, Hyphen,
// Quotation_Mark, Terminal_Punctuation, Pattern_Syntax or Sentence_Terminal property, or an
// invalid UTF-8 byte; in English the apostrophe is part of a word ("can't").
void ForEachToken(
    std::string_view raw, const Language& language,
    const std::function<void(std::string_view lowered, std::string_view written)>& on_token);

// `word` without diacritics: marks dropped, a precomposed letter replaced by its base (é → e);
// letters without a decomposition (ø, ł) stay.
std::string StripDiacritics(std::string_view word);

// `raw` lowercased and stripped as `sensitivity` says, delimiters kept: what a phrase is looked
// for in, and the phrase itself.
std::string Normalize(std::string_view raw, Sensitivity sensitivity);

// The stem of `word` by `language`'s Snowball stemmer (the word itself for "none").
std::string Stem(const Language& language, std::string_view word);

// Calls `on_term` with each term of `raw`: each token, unless it is a stop word (checked on its
// lowercased form when `drop_stop_words`), in its case (lowercased unless case sensitive),
// stemmed, then stripped of diacritics unless diacritic sensitive.
void ForEachTerm(std::string_view raw, const Language& language, Sensitivity sensitivity,
                 bool drop_stop_words, const std::function<void(const std::string& term)>& on_term);

}  // namespace quarry::text
