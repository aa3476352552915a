#include "exec/index_usage.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace quarry::exec {
namespace {

std::int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Counter {
  std::atomic<std::int64_t> ops{0};
  std::atomic<std::int64_t> since_millis{0};
};

// Counters are created once and never freed, so each thread keeps pointers to the ones it has
// used and counts a point read with one relaxed atomic add, without the table's mutex.
class UsageTable {
 public:
  Counter& Of(storage::IndexId index) {
    thread_local std::unordered_map<storage::IndexId, Counter*> cache;
    auto cached = cache.find(index);
    if (cached != cache.end()) return *cached->second;
    std::lock_guard lock(mu_);
    std::unique_ptr<Counter>& counter = counters_[index];
    if (counter == nullptr) {
      counter = std::make_unique<Counter>();
      counter->since_millis.store(started_millis_, std::memory_order_relaxed);
    }
    cache.emplace(index, counter.get());
    return *counter;
  }

 private:
  std::mutex mu_;
  std::unordered_map<storage::IndexId, std::unique_ptr<Counter>> counters_;
  const std::int64_t started_millis_ = NowMillis();
};

UsageTable& Table() {
  static UsageTable* table = new UsageTable();  // outlives every thread's cache
  return *table;
}

}  // namespace

void RecordIndexUse(storage::IndexId index) {
  Table().Of(index).ops.fetch_add(1, std::memory_order_relaxed);
}

void ResetIndexUsage(storage::IndexId index) {
  Counter& counter = Table().Of(index);
  counter.ops.store(0, std::memory_order_relaxed);
  counter.since_millis.store(NowMillis(), std::memory_order_relaxed);
}

IndexUsage IndexUsageOf(storage::IndexId index) {
  const Counter& counter = Table().Of(index);
  return {counter.ops.load(std::memory_order_relaxed),
          counter.since_millis.load(std::memory_order_relaxed)};
}

}  // namespace quarry::exec
