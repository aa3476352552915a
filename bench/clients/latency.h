// What a timed row of operations measured: how many, how fast, and the latency percentiles.
#pragma once

#include <cstdint>
#include <vector>

namespace quarry::bench {

struct LatencySummary {
  std::int64_t ops = 0;
  double ops_per_second = 0;
  double p50_micros = 0;
  double p99_micros = 0;
  double max_micros = 0;
};

// The nearest-rank percentile of ascending `sorted` (fraction in [0, 1]); 0 when empty.
double Percentile(const std::vector<double>& sorted, double fraction);

// Sorts `micros` (one latency per operation) and summarises it over `elapsed_seconds`.
LatencySummary Summarize(std::vector<double> micros, double elapsed_seconds);

}  // namespace quarry::bench
