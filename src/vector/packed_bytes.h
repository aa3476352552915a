// Byte strings by index in one contiguous buffer: a search reads a label's filter values for
// every candidate it considers, and one heap block per label would make each read a cache miss
// and cost an allocation's overhead per label.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"

namespace quarry::vector {

// Not thread-safe: a reader's views stay valid until the next Append, Set or Clear.
class PackedBytes {
 public:
  std::size_t size() const { return offsets_.size(); }
  std::size_t buffer_size() const { return bytes_.size(); }

  // Adds `bytes` as the last entry.
  void Append(std::string_view bytes);
  // Replaces entry `index`; empty `bytes` leave it empty. The bytes it held stay in the buffer
  // until they are over half of it, when the buffer is rewritten with the live entries only.
  void Set(std::size_t index, std::string_view bytes);
  std::string_view Get(std::size_t index) const;
  // Entry `index` as a BSON document; {} when it is empty. REQUIRES: it holds one.
  bson::DocumentView Document(std::size_t index) const;
  void Clear();

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  void Store(std::size_t index, std::string_view bytes);
  void ReclaimIfMostlyDead();

  std::string bytes_;                   // each entry: its length (uint32, LE), then its bytes
  std::vector<std::uint64_t> offsets_;  // by index: where its length starts, or kEmpty
  std::size_t dead_ = 0;                // bytes of replaced entries
};

}  // namespace quarry::vector
