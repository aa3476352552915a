// A token as a custom analyzer's chain passes it along: Lucene's term, position increment (as
// an absolute position), position length, keyword flag and offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace quarry::text {

struct AnalysisToken {
  std::string term;
  std::uint32_t position = 0;
  std::size_t start = 0, end = 0;  // in the text the tokenizer read
  std::uint32_t length = 1;        // positions spanned: a shingle of n tokens spans more
  bool keyword = false;            // stemmers leave it as it is (keywordRepeat's first copy)
};

}  // namespace quarry::text
