// The three codecs behind one interface, with the size checks that keep a hostile
// uncompressedSize from making us allocate or write more than the message promised.
#include "wire/compression.h"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>

#include "base/endian.h"
#include "wire/limits.h"
#include "wire/message_header.h"

namespace quarry::wire {
namespace {

// zlib's deflate cannot do better than about 1032:1, so a zlib payload that claims more is
// corrupt; rejecting it early avoids allocating for it.
constexpr std::size_t kZlibMaxRatio = 1032;

// Below this size zstd level 3 compresses no better than level 1 but is a third slower;
// above it, level 3 saves about a fifth of the bytes.
constexpr std::size_t kZstdSmallInput = 128 * 1024;

// OP_COMPRESSED body before the payload: originalOpcode, uncompressedSize, compressorId.
constexpr std::size_t kCompressedPrefixSize = 9;

Status Corrupt(Compressor compressor, std::string_view what) {
  return Status(ErrorCode::kProtocolError, std::string(CompressorName(compressor)) +
                                               " payload is invalid: " + std::string(what));
}

Status SizeMismatch(Compressor compressor, std::size_t actual, std::size_t expected) {
  return Status(ErrorCode::kProtocolError,
                std::string(CompressorName(compressor)) + " payload decompresses to " +
                    std::to_string(actual) + " bytes, but uncompressedSize is " +
                    std::to_string(expected));
}

}  // namespace

std::string_view CompressorName(Compressor compressor) {
  switch (compressor) {
    case Compressor::kNoop:
      return "noop";
    case Compressor::kSnappy:
      return "snappy";
    case Compressor::kZlib:
      return "zlib";
    case Compressor::kZstd:
      return "zstd";
  }
  return "unknown";
}

std::optional<Compressor> CompressorFromName(std::string_view name) {
  for (Compressor c :
       {Compressor::kNoop, Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    if (CompressorName(c) == name) return c;
  }
  return std::nullopt;
}

std::optional<Compressor> CompressorFromId(std::uint8_t id) {
  if (id > static_cast<std::uint8_t>(Compressor::kZstd)) return std::nullopt;
  return static_cast<Compressor>(id);
}

std::vector<Compressor> DefaultCompressors() {
  return {Compressor::kSnappy, Compressor::kZstd, Compressor::kZlib};
}

CompressionContext::CompressionContext(std::vector<Compressor> enabled)
    : enabled_(std::move(enabled)) {}

CompressionContext::~CompressionContext() {
  ZSTD_freeCCtx(zstd_compress_);
  ZSTD_freeDCtx(zstd_decompress_);
}

bool CompressionContext::IsEnabled(Compressor compressor) const {
  return std::find(enabled_.begin(), enabled_.end(), compressor) != enabled_.end();
}

Status CompressionContext::Decompress(Compressor compressor, std::string_view input,
                                      std::size_t uncompressed_size, std::string* out) {
  if (!IsEnabled(compressor)) {
    return Status(ErrorCode::kProtocolError, "received a message compressed with " +
                                                 std::string(CompressorName(compressor)) +
                                                 ", which is not enabled on this server");
  }
  // Check what the payload itself says about its size before allocating for it.
  switch (compressor) {
    case Compressor::kNoop:
      if (input.size() != uncompressed_size) {
        return SizeMismatch(compressor, input.size(), uncompressed_size);
      }
      break;
    case Compressor::kSnappy: {
      std::size_t stored = 0;
      if (!snappy::GetUncompressedLength(input.data(), input.size(), &stored)) {
        return Corrupt(compressor, "bad length preamble");
      }
      if (stored != uncompressed_size) return SizeMismatch(compressor, stored, uncompressed_size);
      break;
    }
    case Compressor::kZlib:
      if (uncompressed_size / kZlibMaxRatio > input.size()) {
        return Corrupt(compressor, "uncompressedSize is impossibly large for the payload");
      }
      break;
    case Compressor::kZstd: {
      // The first frame's header may state its size. Drivers send a single frame, whose size
      // must then match exactly; with more frames it can only be too large.
      unsigned long long stored = ZSTD_getFrameContentSize(input.data(), input.size());
      if (stored == ZSTD_CONTENTSIZE_ERROR) return Corrupt(compressor, "not a zstd frame");
      const bool single_frame =
          ZSTD_findFrameCompressedSize(input.data(), input.size()) == input.size();
      if (stored != ZSTD_CONTENTSIZE_UNKNOWN &&
          (stored > uncompressed_size || (single_frame && stored != uncompressed_size))) {
        return SizeMismatch(compressor, static_cast<std::size_t>(stored), uncompressed_size);
      }
      break;
    }
  }

  const std::size_t offset = out->size();
  out->resize(offset + uncompressed_size);
  char* dest = out->data() + offset;
  auto fail = [&](Status status) {
    out->resize(offset);
    return status;
  };

  switch (compressor) {
    case Compressor::kNoop:
      std::copy(input.begin(), input.end(), dest);
      return Status::OK();
    case Compressor::kSnappy:
      // The length preamble matched, so RawUncompress writes at most uncompressed_size bytes.
      if (!snappy::RawUncompress(input.data(), input.size(), dest)) {
        return fail(Corrupt(compressor, "corrupt block"));
      }
      return Status::OK();
    case Compressor::kZlib: {
      uLongf dest_len = static_cast<uLongf>(uncompressed_size);
      int rc = uncompress(reinterpret_cast<Bytef*>(dest), &dest_len,
                          reinterpret_cast<const Bytef*>(input.data()),
                          static_cast<uLong>(input.size()));
      if (rc == Z_BUF_ERROR && dest_len == uncompressed_size && uncompressed_size > 0) {
        return fail(Status(ErrorCode::kProtocolError,
                           "zlib payload decompresses to more than uncompressedSize (" +
                               std::to_string(uncompressed_size) + " bytes)"));
      }
      if (rc != Z_OK) return fail(Corrupt(compressor, zError(rc)));
      if (dest_len != uncompressed_size) {
        return fail(SizeMismatch(compressor, dest_len, uncompressed_size));
      }
      return Status::OK();
    }
    case Compressor::kZstd: {
      if (zstd_decompress_ == nullptr) {
        zstd_decompress_ = ZSTD_createDCtx();
        if (zstd_decompress_ == nullptr) {
          return fail(Status(ErrorCode::kInternalError, "cannot create a zstd context"));
        }
      }
      // Decompresses into the buffer's capacity whether or not the frame stores its size.
      std::size_t n = ZSTD_decompressDCtx(zstd_decompress_, dest, uncompressed_size, input.data(),
                                          input.size());
      if (ZSTD_isError(n)) {
        if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall) {
          return fail(Status(ErrorCode::kProtocolError,
                             "zstd payload decompresses to more than uncompressedSize (" +
                                 std::to_string(uncompressed_size) + " bytes)"));
        }
        return fail(Corrupt(compressor, ZSTD_getErrorName(n)));
      }
      if (n != uncompressed_size) return fail(SizeMismatch(compressor, n, uncompressed_size));
      return Status::OK();
    }
  }
  return fail(Status(ErrorCode::kProtocolError, "unknown compressor"));
}

Status CompressionContext::Compress(Compressor compressor, std::string_view input,
                                    std::string* out) {
  const std::size_t offset = out->size();
  switch (compressor) {
    case Compressor::kNoop:
      out->append(input);
      return Status::OK();
    case Compressor::kSnappy: {
      out->resize(offset + snappy::MaxCompressedLength(input.size()));
      std::size_t n = 0;
      snappy::RawCompress(input.data(), input.size(), out->data() + offset, &n);
      out->resize(offset + n);
      return Status::OK();
    }
    case Compressor::kZlib: {
      uLongf n = compressBound(static_cast<uLong>(input.size()));
      out->resize(offset + n);
      int rc = compress2(reinterpret_cast<Bytef*>(out->data() + offset), &n,
                         reinterpret_cast<const Bytef*>(input.data()),
                         static_cast<uLong>(input.size()), Z_DEFAULT_COMPRESSION);
      if (rc != Z_OK) {
        out->resize(offset);
        return Status(ErrorCode::kInternalError,
                      std::string("zlib compression failed: ") + zError(rc));
      }
      out->resize(offset + n);
      return Status::OK();
    }
    case Compressor::kZstd: {
      if (zstd_compress_ == nullptr) {
        zstd_compress_ = ZSTD_createCCtx();
        if (zstd_compress_ == nullptr) {
          return Status(ErrorCode::kInternalError, "cannot create a zstd context");
        }
      }
      int level = input.size() < kZstdSmallInput ? 1 : 3;
      out->resize(offset + ZSTD_compressBound(input.size()));
      std::size_t n = ZSTD_compressCCtx(zstd_compress_, out->data() + offset, out->size() - offset,
                                        input.data(), input.size(), level);
      if (ZSTD_isError(n)) {
        out->resize(offset);
        return Status(ErrorCode::kInternalError,
                      std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
      }
      out->resize(offset + n);
      return Status::OK();
    }
  }
  return Status(ErrorCode::kInternalError, "unknown compressor");
}

std::string StartCompressedMessage(const MessageHeader& inner, std::size_t payload_size,
                                   Compressor compressor, std::size_t reserve) {
  std::string out;
  out.reserve(kHeaderSize + kCompressedPrefixSize + reserve);
  out.resize(kHeaderSize);  // FinishCompressedMessage fills it, once the length is known
  AppendLittleEndianInt32(inner.op_code, &out);
  AppendLittleEndianInt32(static_cast<std::int32_t>(payload_size), &out);
  out.push_back(static_cast<char>(compressor));
  return out;
}

void FinishCompressedMessage(const MessageHeader& inner, std::string* message) {
  MessageHeader outer = inner;
  outer.message_length = static_cast<std::int32_t>(message->size());
  outer.op_code = static_cast<std::int32_t>(OpCode::kCompressed);
  std::string header;
  AppendHeader(outer, &header);
  std::copy(header.begin(), header.end(), message->begin());
}

std::string CompressionContext::CompressMessage(std::string_view message, Compressor compressor) {
  MessageHeader inner = ReadHeader(message.data());
  std::string_view payload = message.substr(kHeaderSize);
  std::string out = StartCompressedMessage(inner, payload.size(), compressor, payload.size() / 2);
  if (!Compress(compressor, payload, &out).ok() || out.size() > kMaxMessageSizeBytes) {
    return std::string(message);
  }
  FinishCompressedMessage(inner, &out);
  return out;
}

std::string CompressMessage(std::string_view message, Compressor compressor) {
  CompressionContext context;
  return context.CompressMessage(message, compressor);
}

}  // namespace quarry::wire
