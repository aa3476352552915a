// The keys a store holds while clients insert new ones: inserts take the next key after the
// highest, and reads choose only among keys whose insert has been acknowledged.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>

namespace quarry::bench {

// Key indexes [0, limit()) are all in the store. Thread-safe.
class InsertedKeys {
 public:
  // Keys [0, loaded) are in the store already.
  explicit InsertedKeys(std::uint64_t loaded) : next_(loaded), limit_(loaded) {}

  // The index a new insert should use; each caller gets its own.
  std::uint64_t Claim() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // Records that the insert of a claimed `index` was acknowledged.
  void Acknowledge(std::uint64_t index);
  // One past the highest index below which every key is acknowledged: an insert acknowledged
  // ahead of an earlier claim waits for it before reads may choose it.
  std::uint64_t limit() const { return limit_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::uint64_t> next_;
  std::atomic<std::uint64_t> limit_;
  std::mutex mutex_;
  std::set<std::uint64_t> ahead_;  // acknowledged at or above limit_ + 1
};

}  // namespace quarry::bench
