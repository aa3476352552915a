// The byte layout of vector-index snapshots: little-endian integers, length-prefixed strings
// and float arrays in the machine's own order (a snapshot is read back by the server that wrote
// it; another machine would rebuild from the records). A reader never reads past its input.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/endian.h"

namespace quarry::vector {

class SnapshotWriter {
 public:
  explicit SnapshotWriter(std::string* out) : out_(out) {}
  void U32(std::uint32_t v) { AppendLittleEndian32(v, out_); }
  void U64(std::uint64_t v) { AppendLittleEndian64(v, out_); }
  void Bytes(std::string_view bytes) {
    U64(bytes.size());
    out_->append(bytes);
  }
  void Floats(std::span<const float> values) {
    U64(values.size());
    out_->append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  }

 private:
  std::string* out_;
};

class SnapshotReader {
 public:
  explicit SnapshotReader(std::string_view in) : in_(in) {}
  bool U32(std::uint32_t* v) {
    if (in_.size() < 4) return false;
    *v = LoadLittleEndian32(in_.data());
    in_.remove_prefix(4);
    return true;
  }
  bool U64(std::uint64_t* v) {
    std::uint32_t low, high;
    if (!U32(&low) || !U32(&high)) return false;
    *v = static_cast<std::uint64_t>(high) << 32 | low;
    return true;
  }
  bool Bytes(std::string_view* bytes) {
    std::uint64_t size;
    if (!U64(&size) || size > in_.size()) return false;
    *bytes = in_.substr(0, size);
    in_.remove_prefix(size);
    return true;
  }
  bool Floats(std::vector<float>* values) {
    std::uint64_t count;
    if (!U64(&count) || count > in_.size() / sizeof(float)) return false;
    values->resize(count);
    std::memcpy(values->data(), in_.data(), count * sizeof(float));
    in_.remove_prefix(count * sizeof(float));
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

}  // namespace quarry::vector
