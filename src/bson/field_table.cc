#include "bson/field_table.h"

#include <algorithm>
#include <cstdint>

namespace quarry::bson {

namespace {

std::uint64_t KeyBit(std::string_view key) {
  if (key.empty()) return 1;
  const auto mix = key.size() * 31 + static_cast<unsigned char>(key.front()) +
                   static_cast<unsigned char>(key.back()) * 7;
  return std::uint64_t{1} << (mix & 63);
}

}  // namespace

void FieldTable::Reset(DocumentView document) {
  overflow_.clear();
  key_bits_ = 0;
  std::size_t count = 0;
  for (const Element& e : document) {
    key_bits_ |= KeyBit(e.key);
    if (count < kInlineFields) {
      inline_[count] = e;
    } else {
      if (overflow_.empty()) overflow_.assign(inline_.begin(), inline_.end());
      overflow_.push_back(e);
    }
    ++count;
  }
  elements_ = overflow_.empty() ? std::span<const Element>(inline_.data(), count)
                                : std::span<const Element>(overflow_);
}

const Element* FieldTable::Find(std::string_view key) const {
  if ((key_bits_ & KeyBit(key)) == 0) return nullptr;
  for (const Element& e : elements_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

ValueView FieldTable::Get(std::string_view key) const {
  const Element* found = Find(key);
  return found == nullptr ? ValueView() : found->value;
}

bool FieldTable::HasAnyOf(std::initializer_list<std::string_view> keys) const {
  return std::any_of(keys.begin(), keys.end(),
                     [this](std::string_view key) { return Find(key) != nullptr; });
}

}  // namespace quarry::bson
