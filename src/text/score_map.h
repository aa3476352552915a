// label -> score for one search: open addressing with linear probing in one array, so that a
// term held by most of a collection's documents scores them without an allocation each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace quarry::text {

class ScoreMap {
 public:
  using value_type = std::pair<std::uint32_t, double>;

  template <typename Slot>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = ScoreMap::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = Slot*;
    using reference = Slot&;

    Iterator() = default;
    Iterator(Slot* at, Slot* end) : at_(at), end_(end) { Skip(); }
    reference operator*() const { return *at_; }
    pointer operator->() const { return at_; }
    Iterator& operator++() {
      ++at_;
      Skip();
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    void Skip() {
      while (at_ != end_ && at_->first == kEmpty) ++at_;
    }
    Slot* at_ = nullptr;
    Slot* end_ = nullptr;
  };
  using iterator = Iterator<value_type>;
  using const_iterator = Iterator<const value_type>;

  // The score of `label`, 0 when it had none.
  double& operator[](std::uint32_t label);
  const double& at(std::uint32_t label) const { return Slot(label)->second; }
  bool contains(std::uint32_t label) const { return Slot(label) != nullptr; }
  void erase(std::uint32_t label);
  // Removes every entry `pred` holds true for.
  template <typename Pred>
  void EraseIf(Pred pred) {
    ScoreMap kept;
    kept.reserve(size_);
    for (const value_type& entry : *this) {
      if (!pred(entry)) kept[entry.first] = entry.second;
    }
    *this = std::move(kept);
  }

  // Keeps only the labels `other` holds too, adding its scores unless `add_scores` is false:
  // what a MUST of both scores (a filter adds nothing).
  void IntersectWith(const ScoreMap& other, bool add_scores = true) {
    ScoreMap kept;
    kept.reserve(size_ < other.size_ ? size_ : other.size_);
    for (const value_type& entry : *this) {
      if (const value_type* theirs = other.Slot(entry.first)) {
        kept[entry.first] = entry.second + (add_scores ? theirs->second : 0);
      }
    }
    *this = std::move(kept);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void reserve(std::size_t n);

  iterator begin() { return {slots_.data(), slots_.data() + slots_.size()}; }
  iterator end() { return {slots_.data() + slots_.size(), slots_.data() + slots_.size()}; }
  const_iterator begin() const { return {slots_.data(), slots_.data() + slots_.size()}; }
  const_iterator end() const {
    return {slots_.data() + slots_.size(), slots_.data() + slots_.size()};
  }

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};  // never a label

  std::size_t Home(std::uint32_t label) const {
    // Fibonacci hashing: consecutive labels spread over the table.
    return static_cast<std::size_t>((label * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  const value_type* Slot(std::uint32_t label) const;
  void Grow(std::size_t capacity);

  std::vector<value_type> slots_;  // a power of two of them, or none
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace quarry::text
