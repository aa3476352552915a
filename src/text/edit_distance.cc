#include "text/edit_distance.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace quarry::text {

std::vector<char32_t> CodePointsOf(std::string_view s) {
  std::vector<char32_t> out;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto length = static_cast<std::int32_t>(s.size());
  for (std::int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    out.push_back(static_cast<char32_t>(c));
  }
  return out;
}

int EditDistance(const std::vector<char32_t>& a, const std::vector<char32_t>& b, int limit) {
  const std::size_t n = a.size(), m = b.size();
  if (n > kMaxFuzzyTermLength || m > kMaxFuzzyTermLength) return a == b ? 0 : limit + 1;
  if (static_cast<int>(n > m ? n - m : m - n) > limit) return limit + 1;
  // Three rows of the table: a transposition looks two rows back.
  std::vector<int> before(m + 1), previous(m + 1), current(m + 1);
  for (std::size_t j = 0; j <= m; ++j) previous[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    current[0] = static_cast<int>(i);
    int row_best = current[0];
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
      row_best = std::min(row_best, current[j]);
    }
    if (row_best > limit) return limit + 1;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return std::min(previous[m], limit + 1);
}

}  // namespace quarry::text
