// Hands out the queries of a search row to its threads: every query once, then the set again
// from the start until the row has run for a minimum time. A pass over 1,000 queries takes a
// tenth of a second, too short to rise above a shared machine's noise.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>

namespace quarry::bench {

class QueryCycle {
 public:
  // `count` queries in the set, cycled until `min_seconds` after Start() (0: one pass).
  QueryCycle(std::size_t count, double min_seconds);

  struct Turn {
    std::size_t query;  // position in the set
    bool first_pass;    // whether this is the query's first answer, the one to keep
  };

  // Starts the clock; call before the threads begin.
  void Start();
  // The next query to answer, or nullopt when the row is done. Thread-safe.
  std::optional<Turn> Next();
  // Queries answered (handed out) since Start().
  std::size_t handed_out() const { return handed_out_.load(); }
  double SecondsSinceStart() const;

 private:
  const std::size_t count_;
  const std::chrono::steady_clock::duration min_duration_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> handed_out_{0};
};

}  // namespace quarry::bench
