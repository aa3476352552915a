// A bounded queue between a reader and its writers (an import's parser and insertion workers, a
// copy's source cursor and target writer): Push blocks while the queue is full, so a slow writer
// slows the reader down instead of growing memory.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace quarry::tools::client {

template <typename T>
class BatchQueue {
 public:
  explicit BatchQueue(std::size_t capacity) : capacity_(capacity) {}

  // Waits for room. Returns false (dropping `item`) once the queue is closed.
  bool Push(T item) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    ready_.notify_one();
    return true;
  }

  // Waits for an item. nullopt once the queue is closed and empty.
  std::optional<T> Pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    room_.notify_one();
    return item;
  }

  // No more pushes; pops drain what is queued. With `discard`, what is queued is dropped too.
  void Close(bool discard = false) {
    std::lock_guard lock(mutex_);
    closed_ = true;
    if (discard) items_.clear();
    ready_.notify_all();
    room_.notify_all();
  }

 private:
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable room_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace quarry::tools::client
