// The labels holding one term, each with the term's positions there, in label order and
// contiguous, so that a search reads them as fast as memory streams. A removed label stays as
// a tombstone (no positions) until tombstones outnumber the live entries, so that removing
// and setting again a label (an update) costs a binary search, not a move of the entries after
// it. Labels only ever grow, so a new label's entry goes at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace quarry::text {

// A term's positions in one value, in 12 bytes aligned to 4, so that a posting list's entry
// (label and positions) is 16: most terms occur once in a value, and that position is held in
// place; more live in a block of their own ([capacity, positions...]).
class Positions {
 public:
  using value_type = std::uint32_t;
  using iterator = const std::uint32_t*;
  using const_iterator = const std::uint32_t*;

  Positions() = default;
  Positions(std::initializer_list<std::uint32_t> positions);
  Positions(const Positions& other);
  Positions(Positions&& other) noexcept;
  Positions& operator=(Positions other) noexcept;
  ~Positions();

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  const std::uint32_t* begin() const { return count_ <= 1 ? &one_ : Block() + 1; }
  const std::uint32_t* end() const { return begin() + count_; }
  std::uint32_t operator[](std::size_t i) const { return begin()[i]; }
  void push_back(std::uint32_t position);
  void clear();

  friend bool operator==(const Positions& a, const Positions& b);

 private:
  std::uint32_t* Block() const;
  void SetBlock(std::uint32_t* block);

  std::uint32_t count_ = 0;
  union {
    std::uint32_t one_ = 0;
    unsigned char block_[sizeof(std::uint32_t*)];  // count_ > 1: the block's address
  };
};

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
  // Gives back the room the entries grew into beyond their number.
  void ShrinkToFit() { entries_.shrink_to_fit(); }
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
