// The wordDelimiterGraph token filter (Lucene's WordDelimiterGraphFilter): a token splits at
// the characters that are neither letters nor digits, at case changes and between letters and
// digits, into parts that may also be joined again ("Wi-Fi" -> "Wi", "Fi", "WiFi"), each part at
// the positions it stands for, so that joined parts span several.
#pragma once

#include <string>
#include <vector>

#include "text/analysis_token.h"

namespace quarry::text {

struct WordDelimiterOptions {
  bool generate_word_parts = true;
  bool generate_number_parts = true;
  bool concatenate_words = false;
  bool concatenate_numbers = false;
  bool concatenate_all = false;
  bool preserve_original = false;
  bool split_on_case_change = true;
  bool split_on_numerics = true;
  bool stem_english_possessive = true;          // "O'Neil's" -> "O", "Neil"
  bool ignore_keywords = false;                 // keyword tokens pass whole
  std::vector<std::u16string> protected_words;  // passed whole; lowercased with ignore_case
  bool protected_ignore_case = true;
};

std::vector<AnalysisToken> DelimitWords(const std::vector<AnalysisToken>& tokens,
                                        const WordDelimiterOptions& options);

}  // namespace quarry::text
