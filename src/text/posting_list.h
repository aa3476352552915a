// The labels holding one term, each with the term's positions there, in label order and
// contiguous, so that a search reads them as fast as memory streams. A removed label stays as
// a tombstone (no positions) until tombstones outnumber the live entries, so that removing
// and setting again a label (an update) costs a binary search, not a move of the entries after
// it. Labels only ever grow, so a new label's entry goes at the end.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quarry::text {

// Most terms occur once or twice in a value: those positions need no allocation of their own.
using Positions = boost::container::small_vector<std::uint32_t, 2>;

class PostingList {
 public:
  struct Entry {
    std::uint32_t label;
    Positions positions;  // empty: a tombstone
  };

  // Walks the live entries in label order.
  class Iterator {
   public:
    Iterator(const Entry* at, const Entry* end) : at_(at), end_(end) { Skip(); }
    const Entry& operator*() const { return *at_; }
    const Entry* operator->() const { return at_; }
    Iterator& operator++() {
      ++at_;
      Skip();
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    void Skip() {
      while (at_ != end_ && at_->positions.empty()) ++at_;
    }
    const Entry* at_;
    const Entry* end_;
  };

  // The positions of `label`, an empty list the caller fills when it has none yet.
  Positions& operator[](std::uint32_t label);
  void erase(std::uint32_t label);
  // The positions of `label`, or null.
  const Positions* Find(std::uint32_t label) const;

  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  Iterator begin() const { return {entries_.data(), entries_.data() + entries_.size()}; }
  Iterator end() const {
    const Entry* end = entries_.data() + entries_.size();
    return {end, end};
  }

 private:
  std::vector<Entry>::iterator LowerBound(std::uint32_t label);

  std::vector<Entry> entries_;
  std::size_t live_ = 0;
};

}  // namespace quarry::text
