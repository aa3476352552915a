// OP_COMPRESSED's codecs (MongoDB's OP_COMPRESSED specification): snappy raw blocks, zlib streams
// and zstd frames, with the compression contexts a connection keeps between messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "wire/message_header.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace quarry::wire {

// compressorId values on the wire; persisted in messages, never renumber.
enum class Compressor : std::uint8_t { kNoop = 0, kSnappy = 1, kZlib = 2, kZstd = 3 };

// The handshake names: "noop", "snappy", "zlib", "zstd".
std::string_view CompressorName(Compressor compressor);
// The compressor with this handshake name; nullopt for any other name.
std::optional<Compressor> CompressorFromName(std::string_view name);
// The compressor with this wire id; nullopt for reserved ids (4-255).
std::optional<Compressor> CompressorFromId(std::uint8_t id);

// The compressors a server offers unless configured otherwise, in mongod's order.
std::vector<Compressor> DefaultCompressors();

// Per-connection codec state: which compressors the connection accepts, and zstd contexts
// reused across messages (creating one per call costs more than compressing a small reply).
// Not thread-safe; a connection owns one and uses it from one request at a time.
class CompressionContext {
 public:
  // `enabled`: the compressors accepted in incoming OP_COMPRESSED messages (noop only if listed).
  explicit CompressionContext(std::vector<Compressor> enabled = DefaultCompressors());
  ~CompressionContext();
  CompressionContext(const CompressionContext&) = delete;
  CompressionContext& operator=(const CompressionContext&) = delete;

  bool IsEnabled(Compressor compressor) const;
  const std::vector<Compressor>& enabled() const { return enabled_; }

  // Decompresses `input` and appends exactly `uncompressed_size` bytes to `*out`. Fails with
  // kProtocolError if the compressor is not enabled, the input is corrupt, or it does not
  // decompress to exactly `uncompressed_size` bytes. Does not rely on sizes stored inside the
  // input (the Node driver's zstd frames carry none), but rejects inputs whose stored size
  // disagrees before allocating. On failure `*out` keeps its previous contents' prefix only.
  Status Decompress(Compressor compressor, std::string_view input, std::size_t uncompressed_size,
                    std::string* out);

  // Appends the compressed form of `input` to `*out`. zlib uses the default level (as mongod);
  // zstd uses level 1 for small inputs and 3 for large ones. Works whether or not the
  // compressor is enabled. Fails only if a codec fails (out of memory).
  Status Compress(Compressor compressor, std::string_view input, std::string* out);

  // Wraps a whole message (header included) as OP_COMPRESSED with the same requestID and
  // responseTo. Returns the message unchanged if the compressed form would exceed
  // kMaxMessageSizeBytes or a codec fails: clients accept uncompressed replies at any time.
  // REQUIRES: message holds at least a header and is not itself OP_COMPRESSED.
  std::string CompressMessage(std::string_view message, Compressor compressor);

 private:
  std::vector<Compressor> enabled_;
  ZSTD_CCtx_s* zstd_compress_ = nullptr;    // created on first use
  ZSTD_DCtx_s* zstd_decompress_ = nullptr;  // created on first use
};

// CompressMessage with a temporary context, for callers that compress once.
std::string CompressMessage(std::string_view message, Compressor compressor);

// An OP_COMPRESSED message built by hand: Start leaves room for the header and writes
// originalOpcode (from `inner`, the uncompressed message's header), uncompressedSize and
// compressorId; the caller appends the compressed payload; Finish writes the header.
std::string StartCompressedMessage(const MessageHeader& inner, std::size_t payload_size,
                                   Compressor compressor, std::size_t reserve);
void FinishCompressedMessage(const MessageHeader& inner, std::string* message);

}  // namespace quarry::wire
