// Frame surgery by the zstd format (RFC 8878): a frame is its magic number, a header, blocks
// (each with a 3-byte header: last-block flag, type, size) and an optional checksum.
#include "wire/zstd_splice.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_frameHeaderSize, ZSTD_getFrameHeader
#include <zstd.h>

#include <algorithm>
#include <cstdint>

#include "base/endian.h"
#include "wire/compression.h"
#include "wire/limits.h"
#include "wire/message_header.h"

namespace quarry::wire {
namespace {

constexpr std::uint32_t kZstdMagic = 0xFD2FB528;
constexpr std::size_t kMaxBlockSize = 128 * 1024;
constexpr std::uint32_t kRawBlock = 0;
constexpr std::uint32_t kRleBlock = 1;
constexpr std::uint32_t kReservedBlock = 3;

void AppendBlockHeader(bool last, std::uint32_t type, std::uint32_t size, std::string* out) {
  const std::uint32_t header = (size << 3) | (type << 1) | (last ? 1 : 0);
  out->push_back(static_cast<char>(header & 0xFF));
  out->push_back(static_cast<char>((header >> 8) & 0xFF));
  out->push_back(static_cast<char>((header >> 16) & 0xFF));
}

void AppendRawBlocks(std::string_view bytes, bool last, std::string* out) {
  do {
    const std::size_t n = std::min(bytes.size(), kMaxBlockSize);
    AppendBlockHeader(last && n == bytes.size(), kRawBlock, static_cast<std::uint32_t>(n), out);
    out->append(bytes.substr(0, n));
    bytes.remove_prefix(n);
  } while (!bytes.empty());
}

struct Blocks {
  std::string_view bytes;  // the frame's blocks, without its header and checksum
  std::size_t last = 0;    // where in `bytes` the last block's header starts
};

// The blocks of a single zstd frame of `content_size` bytes; nullopt if it is anything else.
std::optional<Blocks> FrameBlocks(std::string_view frame, std::size_t content_size) {
  ZSTD_frameHeader header;
  if (ZSTD_getFrameHeader(&header, frame.data(), frame.size()) != 0 ||
      header.frameType != ZSTD_frame || header.dictID != 0 ||
      header.frameContentSize != content_size) {
    return std::nullopt;
  }
  std::size_t header_size = ZSTD_frameHeaderSize(frame.data(), frame.size());
  if (ZSTD_isError(header_size)) return std::nullopt;
  std::size_t pos = header_size;
  std::size_t last = pos;
  while (true) {
    last = pos;
    if (pos + 3 > frame.size()) return std::nullopt;
    const auto* p = reinterpret_cast<const unsigned char*>(frame.data() + pos);
    const std::uint32_t block = p[0] | (p[1] << 8) | (p[2] << 16);
    const std::uint32_t type = (block >> 1) & 3;
    if (type == kReservedBlock) return std::nullopt;
    const std::size_t stored = type == kRleBlock ? 1 : block >> 3;
    pos += 3 + stored;
    if (pos > frame.size()) return std::nullopt;
    if ((block & 1) != 0) break;
  }
  const std::size_t end = pos + (header.checksumFlag != 0 ? 4 : 0);
  if (end != frame.size()) return std::nullopt;
  return Blocks{frame.substr(header_size, pos - header_size), last - header_size};
}

}  // namespace

std::optional<std::string> SpliceZstdMessage(std::string_view head, const bson::Document& body) {
  if (body.compressed_spans().size() != 1 || head.size() < kHeaderSize) return std::nullopt;
  const bson::CompressedSpan& span = body.compressed_spans()[0];
  std::string_view bytes = body.bytes();
  if (span.zstd_frame == nullptr || span.offset + span.size > bytes.size() ||
      head.size() - kHeaderSize + bytes.size() - span.size > kSpliceMaxRawBytes) {
    return std::nullopt;
  }
  std::optional<Blocks> blocks = FrameBlocks(*span.zstd_frame, span.size);
  if (!blocks.has_value()) return std::nullopt;

  const MessageHeader inner = ReadHeader(head.data());
  const std::size_t payload_size = head.size() - kHeaderSize + bytes.size();
  std::string out = StartCompressedMessage(inner, payload_size, Compressor::kZstd,
                                           13 + blocks->bytes.size() + kSpliceMaxRawBytes);
  // Frame header: single segment (the window is the whole content), 8-byte content size, no
  // checksum, no dictionary.
  AppendLittleEndianInt32(static_cast<std::int32_t>(kZstdMagic), &out);
  out.push_back(static_cast<char>(0xE0));
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(payload_size) >> (8 * i)) & 0xFF));
  }
  std::string before(head.substr(kHeaderSize));
  before.append(bytes.substr(0, span.offset));
  AppendRawBlocks(before, false, &out);
  const std::size_t stored_blocks_at = out.size();
  out.append(blocks->bytes);
  // The stored frame's last block is no longer the last: clear its flag.
  out[stored_blocks_at + blocks->last] &= static_cast<char>(0xFE);
  AppendRawBlocks(bytes.substr(span.offset + span.size), true, &out);
  if (out.size() > kMaxMessageSizeBytes) return std::nullopt;

  FinishCompressedMessage(inner, &out);
  return out;
}

}  // namespace quarry::wire
