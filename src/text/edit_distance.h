// How far apart two terms are for fuzzy matching: Damerau-Levenshtein over code points (a
// swap of neighbours is one edit, as in Lucene's fuzzy queries).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace quarry::text {

// The code points of UTF-8 `s` (an invalid byte is one code point of its own).
std::vector<char32_t> CodePointsOf(std::string_view s);

// Terms longer than this (in code points) match fuzzily only when equal: Lucene's tokenizers
// never make longer ones, and the distance's cost grows with the product of the lengths.
inline constexpr std::size_t kMaxFuzzyTermLength = 255;

// The number of edits from `a` to `b`, or `limit` + 1 once it exceeds `limit` (or either is
// longer than kMaxFuzzyTermLength and they differ).
int EditDistance(const std::vector<char32_t>& a, const std::vector<char32_t>& b, int limit);

}  // namespace quarry::text
