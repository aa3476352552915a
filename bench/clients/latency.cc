// Percentiles by nearest rank: the value below which at least that share of operations fell,
// always one that was measured.
#include "bench/clients/latency.h"

#include <algorithm>
#include <cmath>

namespace quarry::bench {

double Percentile(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(fraction * static_cast<double>(sorted.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

LatencySummary Summarize(std::vector<double> micros, double elapsed_seconds) {
  std::sort(micros.begin(), micros.end());
  LatencySummary summary;
  summary.ops = static_cast<std::int64_t>(micros.size());
  summary.ops_per_second =
      elapsed_seconds > 0 ? static_cast<double>(micros.size()) / elapsed_seconds : 0;
  summary.p50_micros = Percentile(micros, 0.50);
  summary.p99_micros = Percentile(micros, 0.99);
  summary.max_micros = micros.empty() ? 0 : micros.back();
  return summary;
}

}  // namespace quarry::bench
