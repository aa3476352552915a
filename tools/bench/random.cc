// ZipfPicker: a cumulative table and a binary search.
#include <algorithm>

#include "tools/bench/random_internal.h"

namespace quarry::tools::bench {

ZipfPicker::ZipfPicker(std::size_t n, double offset) : cumulative_(n) {
  double sum = 0;
  for (std::size_t rank = 0; rank < n; ++rank) {
    sum += 1.0 / (static_cast<double>(rank) + offset);
    cumulative_[rank] = sum;
  }
  for (double& c : cumulative_) c /= sum;
  cumulative_.back() = 1.0;
}

std::size_t ZipfPicker::Pick(SeededRandom& random) const {
  double u = random.Fraction();
  auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return std::min<std::size_t>(it - cumulative_.begin(), cumulative_.size() - 1);
}

}  // namespace quarry::tools::bench
