// Which graph nodes a search has already reached, reusable across searches without clearing.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace quarry::vector {

// A mark per node, tagged with the current search's epoch so that starting a search costs
// nothing; the marks are cleared only when the epoch wraps. Not thread-safe: one search at a
// time (VisitedPool lends one to each).
class VisitedSet {
 public:
  // Forgets every mark and makes room for nodes 0..node_count-1.
  void Reset(std::size_t node_count);
  // Marks `node`; returns whether it was already marked.
  bool TestAndMark(std::uint32_t node) {
    if (marks_[node] == epoch_) return true;
    marks_[node] = epoch_;
    return false;
  }

 private:
  std::vector<std::uint16_t> marks_;
  std::uint16_t epoch_ = 0;
};

// Lends VisitedSets to concurrent searches and takes them back, so that each search reuses a
// set instead of allocating one the size of the graph.
class VisitedPool {
 public:
  class Lease {
   public:
    Lease(VisitedPool* pool, std::unique_ptr<VisitedSet> set) : pool_(pool), set_(std::move(set)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (set_) pool_->Return(std::move(set_));
    }
    VisitedSet& operator*() const { return *set_; }

   private:
    VisitedPool* pool_;
    std::unique_ptr<VisitedSet> set_;
  };

  // A set reset for `node_count` nodes, returned to the pool when the lease ends.
  Lease Borrow(std::size_t node_count);

 private:
  void Return(std::unique_ptr<VisitedSet> set);

  std::mutex mutex_;
  std::vector<std::unique_ptr<VisitedSet>> free_;
};

}  // namespace quarry::vector
