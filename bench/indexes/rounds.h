// Rows measured in several rounds: which round stands for them, and the spread over all.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bench/clients/verdict.h"

namespace quarry::bench {

// The index of the round whose `values` entry is the median (the lower one of an even count).
// REQUIRES: !values.empty().
inline std::size_t MedianRound(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  return order[(order.size() - 1) / 2];
}

// "low-high" of `values` with two decimals; "-" for none.
inline std::string RangeText(const std::vector<double>& values) {
  if (values.empty()) return "-";
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return Fixed(*low, 2) + "-" + Fixed(*high, 2);
}

}  // namespace quarry::bench
