// Where a connection receives its messages: a buffer that grows as bytes arrive, charged to a
// server-wide budget for memory held by incoming messages.
#pragma once

#include <atomic>
#include <cstddef>

namespace quarry::net::internal {

// The memory every connection's receive buffer holds beyond its first kUnchargedBytes. Shared
// by all connections of a server; thread-safe.
class IncomingMessageMemory {
 public:
  explicit IncomingMessageMemory(std::size_t limit) : limit_(limit) {}

  // Takes `bytes` when they fit under the limit; false (taking nothing) when they do not.
  bool TryTake(std::size_t bytes);
  void Give(std::size_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }
  std::size_t held() const { return held_.load(std::memory_order_relaxed); }
  std::size_t limit() const { return limit_; }

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> held_{0};
};

// A receive buffer from malloc: growing it keeps what was received without zeroing the new
// part (which std::string would, touching every page of a message declared but not yet sent),
// and realloc often extends it in place.
class FrameBuffer {
 public:
  // Every buffer may hold this much without charging the budget: small requests, the common
  // case, never touch the shared counter.
  static constexpr std::size_t kUnchargedBytes = 64 * 1024;

  explicit FrameBuffer(IncomingMessageMemory* budget) : budget_(budget) {}
  ~FrameBuffer() { Free(); }
  FrameBuffer(const FrameBuffer&) = delete;
  FrameBuffer& operator=(const FrameBuffer&) = delete;

  char* data() { return data_; }
  const char* data() const { return data_; }
  std::size_t capacity() const { return capacity_; }

  // Grows to hold at least `size` bytes, keeping its contents. False, changing nothing, when
  // the budget has no room for it (or memory is exhausted).
  bool Grow(std::size_t size);
  // Returns the memory (and its charge).
  void Free();

 private:
  static std::size_t Charge(std::size_t capacity) {
    return capacity > kUnchargedBytes ? capacity - kUnchargedBytes : 0;
  }

  IncomingMessageMemory* budget_;
  char* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace quarry::net::internal
