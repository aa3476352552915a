#include "vector/packed_bytes.h"

namespace quarry::vector {
namespace {

constexpr std::size_t kLengthBytes = 4;
// Below this a buffer is never rewritten: the copy would cost more than the dead bytes.
constexpr std::size_t kMinReclaimBytes = 64 * 1024;

std::uint32_t LengthAt(const std::string& bytes, std::uint64_t offset) {
  std::uint32_t length = 0;
  for (std::size_t byte_idx = 0; byte_idx < kLengthBytes; ++byte_idx) {
    length |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[offset + byte_idx]))
              << (8 * byte_idx);
  }
  return length;
}

}  // namespace

void PackedBytes::Append(std::string_view bytes) {
  offsets_.push_back(kEmpty);
  Store(offsets_.size() - 1, bytes);
}

void PackedBytes::Set(std::size_t index, std::string_view bytes) {
  if (offsets_[index] != kEmpty) {
    dead_ += kLengthBytes + LengthAt(bytes_, offsets_[index]);
    offsets_[index] = kEmpty;
  }
  Store(index, bytes);
  ReclaimIfMostlyDead();
}

std::string_view PackedBytes::Get(std::size_t index) const {
  const std::uint64_t offset = offsets_[index];
  if (offset == kEmpty) return {};
  return std::string_view(bytes_).substr(offset + kLengthBytes, LengthAt(bytes_, offset));
}

bson::DocumentView PackedBytes::Document(std::size_t index) const {
  std::string_view bytes = Get(index);
  return bytes.empty() ? bson::DocumentView() : bson::DocumentView(bytes.data());
}

void PackedBytes::Clear() {
  bytes_.clear();
  offsets_.clear();
  dead_ = 0;
}

void PackedBytes::Store(std::size_t index, std::string_view bytes) {
  if (bytes.empty()) return;
  offsets_[index] = bytes_.size();
  const auto length = static_cast<std::uint32_t>(bytes.size());
  for (std::size_t byte_idx = 0; byte_idx < kLengthBytes; ++byte_idx) {
    bytes_.push_back(static_cast<char>(length >> (8 * byte_idx)));
  }
  bytes_.append(bytes);
}

void PackedBytes::ReclaimIfMostlyDead() {
  if (bytes_.size() < kMinReclaimBytes || dead_ * 2 < bytes_.size()) return;
  std::string live;
  live.reserve(bytes_.size() - dead_);
  for (std::uint64_t& offset : offsets_) {
    if (offset == kEmpty) continue;
    const std::size_t entry = kLengthBytes + LengthAt(bytes_, offset);
    const std::uint64_t moved = live.size();
    live.append(bytes_, offset, entry);
    offset = moved;
  }
  bytes_ = std::move(live);
  dead_ = 0;
}

}  // namespace quarry::vector
