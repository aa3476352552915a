// The full-precision vectors of a quantized index, which only rescoring and exact scans read:
// kept in a shared mapping of an unnamed file (O_TMPFILE) in a directory, so they are page
// cache the kernel may write back and drop under memory pressure, not anonymous memory next to
// the graph. The file has no name and disappears with the store or the process; snapshots,
// not this file, make the vectors durable.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace quarry::vector {

// Not thread-safe: VectorIndex serializes Append against readers (Append may move the mapping).
class VectorStore {
 public:
  // A store of `dimensions`-float vectors in an unnamed file in `dir` (created if missing), or
  // in anonymous memory when `dir` is empty or no file can be made there.
  VectorStore(std::size_t dimensions, const std::string& dir);
  ~VectorStore();
  VectorStore(const VectorStore&) = delete;
  VectorStore& operator=(const VectorStore&) = delete;

  // Adds `vector` (dimensions() floats) as vector number size(). Room grows by doubling; when
  // the file cannot grow (a full disk), the vectors move to anonymous memory rather than fail.
  void Append(std::span<const float> vector);

  std::span<const float> At(std::size_t index) const {
    return {data_ + index * dimensions_, dimensions_};
  }
  std::size_t size() const { return size_; }
  std::size_t dimensions() const { return dimensions_; }
  bool file_backed() const { return fd_ >= 0; }

 private:
  bool Grow(std::size_t capacity);
  void MoveToAnonymousMemory(std::size_t capacity);

  std::size_t dimensions_;
  int fd_ = -1;
  float* data_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  std::size_t capacity_ = 0;  // vectors
  std::size_t size_ = 0;
};

}  // namespace quarry::vector
