// The languages text search analyzes words in: how a language splits, lowercases, drops and
// stems them.
#pragma once

#include <string>
#include <string_view>

namespace quarry::text {

struct Language {
  std::string_view name;      // as an index spec and $language name it: "english", "none"
  std::string_view snowball;  // the Snowball stemmer's name; empty: words are not stemmed
  bool (*is_stop_word)(std::string_view lowered_word) = nullptr;  // null: none are dropped
  // Whether an apostrophe is part of a word ("can't"), as in English, or splits it.
  bool apostrophe_in_words = false;
  // Turkish lowercasing: I becomes dotless ı, İ becomes i.
  bool turkish_case = false;
};

// The language `name` names (its name or ISO 639-1 code, in any case: "english", "EN"), or null
// when text search does not support it.
const Language* FindLanguage(std::string_view name);

// What an error about an unsupported language adds: the languages text search has.
inline constexpr std::string_view kSupportedLanguages =
    " (text search supports danish, dutch, english, finnish, french, german, hungarian, "
    "italian, norwegian, portuguese, romanian, russian, spanish, swedish, turkish and none)";

}  // namespace quarry::text
