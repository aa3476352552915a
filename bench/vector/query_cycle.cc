#include "bench/vector/query_cycle.h"

namespace quarry::bench {

using Clock = std::chrono::steady_clock;

QueryCycle::QueryCycle(std::size_t count, double min_seconds)
    : count_(count),
      min_duration_(
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(min_seconds))) {
}

void QueryCycle::Start() { start_ = Clock::now(); }

std::optional<QueryCycle::Turn> QueryCycle::Next() {
  if (count_ == 0) return std::nullopt;
  const std::size_t position = next_++;
  // The first pass always completes, so every query has its answer; later passes only while
  // the row is short of its minimum time.
  if (position >= count_ && Clock::now() - start_ >= min_duration_) return std::nullopt;
  ++handed_out_;
  return Turn{.query = position % count_, .first_pass = position < count_};
}

double QueryCycle::SecondsSinceStart() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

}  // namespace quarry::bench
