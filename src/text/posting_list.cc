#include "text/posting_list.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace quarry::text {

static_assert(sizeof(PostingList::Entry) == 16, "a posting is a label and 12 bytes of positions");

Positions::Positions(std::initializer_list<std::uint32_t> positions) {
  for (const std::uint32_t position : positions) push_back(position);
}

Positions::Positions(const Positions& other) {
  for (const std::uint32_t position : other) push_back(position);
}

Positions::Positions(Positions&& other) noexcept : count_(other.count_) {
  std::memcpy(block_, other.block_, sizeof(block_));
  other.count_ = 0;
}

Positions& Positions::operator=(Positions other) noexcept {
  std::swap(count_, other.count_);
  unsigned char mine[sizeof(block_)];
  std::memcpy(mine, block_, sizeof(block_));
  std::memcpy(block_, other.block_, sizeof(block_));
  std::memcpy(other.block_, mine, sizeof(block_));
  return *this;
}

Positions::~Positions() { clear(); }

std::uint32_t* Positions::Block() const {
  std::uint32_t* block = nullptr;
  std::memcpy(&block, block_, sizeof(block));
  return block;
}

void Positions::SetBlock(std::uint32_t* block) { std::memcpy(block_, &block, sizeof(block)); }

void Positions::push_back(std::uint32_t position) {
  if (count_ == 0) {
    one_ = position;
  } else if (count_ == 1) {
    auto* block = static_cast<std::uint32_t*>(std::malloc(sizeof(std::uint32_t) * 5));
    if (block == nullptr) throw std::bad_alloc();
    block[0] = 4;
    block[1] = one_;
    block[2] = position;
    SetBlock(block);
  } else {
    std::uint32_t* block = Block();
    if (count_ == block[0]) {
      const std::uint32_t capacity = block[0] * 2;
      auto* grown = static_cast<std::uint32_t*>(
          std::realloc(block, sizeof(std::uint32_t) * (std::size_t{capacity} + 1)));
      if (grown == nullptr) throw std::bad_alloc();
      grown[0] = capacity;
      block = grown;
      SetBlock(block);
    }
    block[count_ + 1] = position;
  }
  ++count_;
}

void Positions::clear() {
  if (count_ > 1) std::free(Block());
  count_ = 0;
  one_ = 0;
}

bool operator==(const Positions& a, const Positions& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

std::vector<PostingList::Entry>::iterator PostingList::LowerBound(std::uint32_t label) {
  return std::lower_bound(entries_.begin(), entries_.end(), label,
                          [](const Entry& entry, std::uint32_t l) { return entry.label < l; });
}

Positions& PostingList::operator[](std::uint32_t label) {
  auto at = entries_.empty() || entries_.back().label < label ? entries_.end() : LowerBound(label);
  if (at == entries_.end() || at->label != label) {
    at = entries_.insert(at, Entry{label, {}});
  }
  // The caller adds positions: counted live from the first one, which an empty list lacks.
  if (at->positions.empty()) ++live_;
  return at->positions;
}

void PostingList::erase(std::uint32_t label) {
  auto at = LowerBound(label);
  if (at == entries_.end() || at->label != label || at->positions.empty()) return;
  at->positions.clear();
  --live_;
  const std::size_t tombstones = entries_.size() - live_;
  if (tombstones > live_ && tombstones > 16) {
    std::erase_if(entries_, [](const Entry& entry) { return entry.positions.empty(); });
  }
}

const Positions* PostingList::Find(std::uint32_t label) const {
  auto at = std::lower_bound(entries_.begin(), entries_.end(), label,
                             [](const Entry& entry, std::uint32_t l) { return entry.label < l; });
  if (at == entries_.end() || at->label != label || at->positions.empty()) return nullptr;
  return &at->positions;
}

}  // namespace quarry::text
