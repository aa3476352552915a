#include "text/score_map.h"

namespace quarry::text {

namespace {
// Kept at most seven eighths full, so that probes stay short.
bool TooFull(std::size_t size, std::size_t capacity) { return (size + 1) * 8 > capacity * 7; }
}  // namespace

const ScoreMap::value_type* ScoreMap::Slot(std::uint32_t label) const {
  if (slots_.empty()) return nullptr;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = Home(label);; i = (i + 1) & mask) {
    if (slots_[i].first == label) return &slots_[i];
    if (slots_[i].first == kEmpty) return nullptr;
  }
}

double& ScoreMap::operator[](std::uint32_t label) {
  if (slots_.empty() || TooFull(size_, slots_.size())) {
    Grow(slots_.empty() ? 16 : slots_.size() * 2);
  }
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = Home(label);; i = (i + 1) & mask) {
    if (slots_[i].first == label) return slots_[i].second;
    if (slots_[i].first == kEmpty) {
      slots_[i] = {label, 0.0};
      ++size_;
      return slots_[i].second;
    }
  }
}

void ScoreMap::erase(std::uint32_t label) {
  if (slots_.empty()) return;
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = Home(label);
  while (slots_[i].first != label) {
    if (slots_[i].first == kEmpty) return;
    i = (i + 1) & mask;
  }
  // Backward shift: move each later entry of the run into the hole when its home allows, so
  // that no probe ever stops early at the emptied slot.
  for (std::size_t j = (i + 1) & mask; slots_[j].first != kEmpty; j = (j + 1) & mask) {
    const std::size_t home = Home(slots_[j].first);
    // Whether `home` lies cyclically in (i, j]: then the entry cannot move to i.
    const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!stays) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i].first = kEmpty;
  --size_;
}

void ScoreMap::reserve(std::size_t n) {
  std::size_t capacity = 16;
  while (TooFull(n, capacity)) capacity *= 2;
  if (capacity > slots_.size()) Grow(capacity);
}

void ScoreMap::Grow(std::size_t capacity) {
  std::vector<value_type> old = std::move(slots_);
  slots_.assign(capacity, {kEmpty, 0.0});
  shift_ = 64;
  for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
  size_ = 0;
  const std::size_t mask = capacity - 1;
  for (const value_type& entry : old) {
    if (entry.first == kEmpty) continue;
    std::size_t i = Home(entry.first);
    while (slots_[i].first != kEmpty) i = (i + 1) & mask;
    slots_[i] = entry;
    ++size_;
  }
}

}  // namespace quarry::text
