// Words too common to search for, per language: text indexes do not hold them and searches
// ignore them.
#pragma once

#include <string_view>

namespace quarry::text {

// Whether `folded_word` (case-folded, diacritics stripped) is an English stop word.
bool IsEnglishStopWord(std::string_view folded_word);

}  // namespace quarry::text
