// Key and value text, and the shared write counter.
#include "bench/pointops/key_space.h"

#include <algorithm>
#include <cstdio>

namespace quarry::bench {

std::string KeyOf(std::size_t index) {
  char text[32];
  std::snprintf(text, sizeof text, "key:%010zu", index);
  return text;
}

std::string ValueOf(std::size_t index, std::size_t bytes) {
  std::string value(bytes, ' ');
  for (std::size_t byte_idx = 0; byte_idx < bytes; ++byte_idx) {
    value[byte_idx] = static_cast<char>('a' + (index + byte_idx * 7) % 26);
  }
  return value;
}

std::optional<std::size_t> KeySpace::NextToWrite() {
  const std::size_t taken = next_.fetch_add(1, std::memory_order_relaxed);
  if (taken >= capacity_) return std::nullopt;
  return first_ + taken;
}

std::size_t KeySpace::end() const {
  return first_ + std::min(next_.load(std::memory_order_relaxed), capacity_);
}

}  // namespace quarry::bench
