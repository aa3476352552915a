// Which graph nodes a search has already reached, reusable across searches without clearing.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace quarry::vector {

// A bit per node. A search touches a few thousand nodes of a graph that may hold millions, so
// the bits stay in the core's nearest caches while the vectors stream past them (an array of
// per-node epochs 16 times the size missed the cache on most checks), and starting a search
// clears only the words the previous one set. Not thread-safe: one search at a time
// (VisitedPool lends one to each).
class VisitedSet {
 public:
  // Forgets every mark and makes room for nodes 0..node_count-1.
  void Reset(std::size_t node_count);
  // Marks `node`; returns whether it was already marked.
  bool TestAndMark(std::uint32_t node) {
    std::uint64_t& word = words_[node / kBitsPerWord];
    const std::uint64_t bit = std::uint64_t{1} << (node % kBitsPerWord);
    if ((word & bit) != 0) return true;
    if (word == 0) touched_[touched_count_++] = node / kBitsPerWord;
    word |= bit;
    return false;
  }

 private:
  static constexpr std::uint32_t kBitsPerWord = 64;
  std::vector<std::uint64_t> words_;
  // Room for every word, so that marking never allocates; the first touched_count_ are the
  // indexes of the words with a bit set.
  std::vector<std::uint32_t> touched_;
  std::size_t touched_count_ = 0;
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
