// Visited bits and the pool that lends them.
#include "vector/visited_set.h"

namespace quarry::vector {

void VisitedSet::Reset(std::size_t node_count) {
  for (std::size_t i = 0; i < touched_count_; ++i) words_[touched_[i]] = 0;
  touched_count_ = 0;
  const std::size_t word_count = (node_count + kBitsPerWord - 1) / kBitsPerWord;
  if (words_.size() < word_count) {
    words_.resize(word_count, 0);
    touched_.resize(word_count);
  }
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
