// The token filters that look past one token: each takes the whole stream (in order) and gives
// the stream Lucene's filter of the same name makes of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "text/analysis_token.h"

namespace quarry::text {

// keywordRepeat: each token twice at its position, first marked as a keyword.
std::vector<AnalysisToken> RepeatAsKeywords(std::vector<AnalysisToken> tokens);

// removeDuplicates: a token whose term a token before it at the same position already has is
// dropped.
std::vector<AnalysisToken> WithoutDuplicates(std::vector<AnalysisToken> tokens);

// limitTokenCount: the first `count` tokens.
std::vector<AnalysisToken> FirstTokens(std::vector<AnalysisToken> tokens, std::size_t count);

// shingle (Lucene's ShingleFilter without unigrams): from each token, the runs of `min` to `max`
// tokens joined by a space, where each position a dropped token left empty is "_" (and a run of
// only those is skipped). The shingles from one token share a position; one of n tokens spans
// n - min + 1 positions. `end_position` is the position after the stream's last (trailing
// dropped tokens leave a gap there too).
std::vector<AnalysisToken> Shingles(const std::vector<AnalysisToken>& tokens, std::size_t min,
                                    std::size_t max, std::uint32_t end_position);

}  // namespace quarry::text
