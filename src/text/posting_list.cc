#include "text/posting_list.h"

#include <algorithm>

namespace quarry::text {

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
