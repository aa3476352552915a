// Acknowledgements arrive out of order from concurrent inserts; the limit moves only over a
// gap-free run, so a reader never picks a key still being written.
#include "bench/ycsb/inserted_keys.h"

namespace quarry::bench {

void InsertedKeys::Acknowledge(std::uint64_t index) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t limit = limit_.load(std::memory_order_relaxed);
  if (index != limit) {
    ahead_.insert(index);
    return;
  }
  ++limit;
  while (!ahead_.empty() && *ahead_.begin() == limit) {
    ahead_.erase(ahead_.begin());
    ++limit;
  }
  limit_.store(limit, std::memory_order_release);
}

}  // namespace quarry::bench
