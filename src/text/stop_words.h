// Words too common to search for, per language: text indexes do not hold them and searches
// ignore them. Each takes a word lowercased, diacritics kept.
#pragma once

#include <string_view>

namespace quarry::text {

bool IsEnglishStopWord(std::string_view lowered_word);
bool IsSpanishStopWord(std::string_view lowered_word);
bool IsFrenchStopWord(std::string_view lowered_word);
bool IsGermanStopWord(std::string_view lowered_word);
bool IsItalianStopWord(std::string_view lowered_word);
bool IsPortugueseStopWord(std::string_view lowered_word);
bool IsDutchStopWord(std::string_view lowered_word);
bool IsDanishStopWord(std::string_view lowered_word);
bool IsNorwegianStopWord(std::string_view lowered_word);
bool IsSwedishStopWord(std::string_view lowered_word);
bool IsFinnishStopWord(std::string_view lowered_word);
bool IsHungarianStopWord(std::string_view lowered_word);
bool IsRomanianStopWord(std::string_view lowered_word);
bool IsRussianStopWord(std::string_view lowered_word);
bool IsTurkishStopWord(std::string_view lowered_word);

}  // namespace quarry::text
