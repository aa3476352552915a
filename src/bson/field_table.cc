#include "bson/field_table.h"

#include <algorithm>
#include <cstdint>

namespace quarry::bson {

void FieldTable::Reset(DocumentView document) {
  overflow_.clear();
  std::size_t count = 0;
  for (const Element& e : document) {
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

ValueView FieldTable::Get(std::string_view key) const {
  for (const Element& e : elements_) {
    if (e.key == key) return e.value;
  }
  return {};
}

bool FieldTable::HasAnyOf(std::initializer_list<std::string_view> keys) const {
  // Bit n: some key is n bytes long (n < 64), so most fields are passed over by their length.
  std::uint64_t lengths = 0;
  bool long_key = false;
  for (std::string_view key : keys) {
    if (key.size() < 64) {
      lengths |= std::uint64_t{1} << key.size();
    } else {
      long_key = true;
    }
  }
  return std::any_of(elements_.begin(), elements_.end(), [&](const Element& e) {
    const bool maybe = e.key.size() < 64 ? (lengths >> e.key.size() & 1) != 0 : long_key;
    return maybe && std::find(keys.begin(), keys.end(), e.key) != keys.end();
  });
}

}  // namespace quarry::bson
