// Epoch-tagged visited marks and the pool that lends them.
#include "vector/visited_set.h"

#include <algorithm>
#include <limits>

namespace quarry::vector {

void VisitedSet::Reset(std::size_t node_count) {
  if (marks_.size() < node_count) marks_.resize(node_count, epoch_);
  if (epoch_ == std::numeric_limits<std::uint16_t>::max()) {
    // Old marks could equal a reused epoch: clear them once every 65535 searches.
    std::fill(marks_.begin(), marks_.end(), 0);
    epoch_ = 0;
  }
  ++epoch_;
}

VisitedPool::Lease VisitedPool::Borrow(std::size_t node_count) {
  std::unique_ptr<VisitedSet> set;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      set = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (!set) set = std::make_unique<VisitedSet>();
  set->Reset(node_count);
  return Lease(this, std::move(set));
}

void VisitedPool::Return(std::unique_ptr<VisitedSet> set) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(std::move(set));
}

}  // namespace quarry::vector
