#include "text/token_stream_filters.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace quarry::text {

std::vector<AnalysisToken> RepeatAsKeywords(std::vector<AnalysisToken> tokens) {
  std::vector<AnalysisToken> out;
  out.reserve(tokens.size() * 2);
  for (AnalysisToken& token : tokens) {
    AnalysisToken keyword = token;
    keyword.keyword = true;
    out.push_back(std::move(keyword));
    token.keyword = false;
    out.push_back(std::move(token));
  }
  return out;
}

std::vector<AnalysisToken> WithoutDuplicates(std::vector<AnalysisToken> tokens) {
  std::vector<AnalysisToken> out;
  std::set<std::string> seen;  // the terms at the current position
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool stacked = i > 0 && tokens[i].position == tokens[i - 1].position;
    if (!stacked) seen.clear();
    if (!seen.insert(tokens[i].term).second && stacked) continue;
    out.push_back(std::move(tokens[i]));
  }
  return out;
}

std::vector<AnalysisToken> FirstTokens(std::vector<AnalysisToken> tokens, std::size_t count) {
  if (tokens.size() > count) tokens.resize(count);
  return tokens;
}

namespace {

// A place in the shingles' window: a token, or the filler of a position no token holds.
struct WindowSlot {
  const AnalysisToken* token;  // null: a filler
  std::size_t start, end;
  bool keyword;
};

constexpr std::string_view kFiller = "_";
constexpr std::string_view kSeparator = " ";

}  // namespace

std::vector<AnalysisToken> Shingles(const std::vector<AnalysisToken>& tokens, std::size_t min,
                                    std::size_t max, std::uint32_t end_position) {
  std::vector<WindowSlot> window;
  std::int64_t previous = -1;
  auto fill = [&](std::int64_t gap, std::size_t at, bool keyword) {
    const auto fillers = std::min<std::int64_t>(gap, static_cast<std::int64_t>(max) - 1);
    for (std::int64_t k = 0; k < fillers; ++k) window.push_back({nullptr, at, at, keyword});
  };
  for (const AnalysisToken& token : tokens) {
    const std::int64_t increment = static_cast<std::int64_t>(token.position) - previous;
    if (increment > 1) fill(increment - 1, token.start, token.keyword);
    window.push_back({&token, token.start, token.end, token.keyword});
    previous = std::max<std::int64_t>(previous, token.position);
  }
  if (!tokens.empty()) {
    fill(static_cast<std::int64_t>(end_position) - (previous + 1), tokens.back().end, false);
  }

  std::vector<AnalysisToken> out;
  for (std::size_t from = 0; from < window.size(); ++from) {
    bool emitted = false;
    for (std::size_t n = min; n <= max && from + n <= window.size(); ++n) {
      const auto first = window.begin() + static_cast<std::ptrdiff_t>(from);
      const auto last = first + static_cast<std::ptrdiff_t>(n);
      if (std::all_of(first, last, [](const WindowSlot& slot) { return slot.token == nullptr; })) {
        continue;
      }
      AnalysisToken shingle;
      for (auto slot = first; slot != last; ++slot) {
        if (slot != first) shingle.term.append(kSeparator);
        shingle.term.append(slot->token != nullptr ? std::string_view(slot->token->term) : kFiller);
      }
      shingle.position = static_cast<std::uint32_t>(from);
      shingle.start = first->start;
      shingle.end = (last - 1)->end;
      shingle.length = static_cast<std::uint32_t>(n - min + 1);
      shingle.keyword = first->keyword;
      out.push_back(std::move(shingle));
      emitted = true;
    }
    // Lucene's filter ends its stream at the first token no shingle starts from.
    if (!emitted) break;
  }
  return out;
}

}  // namespace quarry::text
