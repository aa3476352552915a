// The keys of the key-value rows: written one at a time by any number of writers, each key
// once, then read at random.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

namespace quarry::bench {

// Key `index` as both stores hold it ("key:0000000042"), and its value: `bytes` printable
// characters that depend on the index.
std::string KeyOf(std::size_t index);
std::string ValueOf(std::size_t index, std::size_t bytes);

// Hands out key indexes first, first + 1, ... to concurrent writers, at most `capacity` of
// them, so a timed write row cannot grow a store without bound. Thread-safe.
class KeySpace {
 public:
  KeySpace(std::size_t first, std::size_t capacity) : first_(first), capacity_(capacity) {}

  // The next index to write, or nullopt once `capacity` indexes have been handed out.
  std::optional<std::size_t> NextToWrite();
  // One past the last index handed out: every index below it is written once the writers have
  // finished.
  std::size_t end() const;

 private:
  std::atomic<std::size_t> next_{0};
  const std::size_t first_;
  const std::size_t capacity_;
};

}  // namespace quarry::bench
