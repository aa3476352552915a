// zstd frames for large records; one compression and one decompression context per thread,
// reused, because a context for a multi-megabyte input costs more to set up than to keep.
#include "storage/record_compression.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace quarry::storage {
namespace {

constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

// Each sample of a document checked before compressing it whole (LooksIncompressible).
constexpr std::size_t kSampleBytes = 16 * 1024;

struct Contexts {
  ZSTD_CCtx* compress = ZSTD_createCCtx();
  ZSTD_DCtx* decompress = ZSTD_createDCtx();
  Contexts() {
    ZSTD_CCtx_setParameter(compress, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(compress, ZSTD_c_contentSizeFlag, 1);
  }
  ~Contexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
  Contexts(const Contexts&) = delete;
  Contexts& operator=(const Contexts&) = delete;
};

Contexts& ThreadContexts() {
  thread_local Contexts contexts;
  return contexts;
}

// Whether the frame of `size` bytes compressed from `raw` bytes saves too little to keep.
bool SavesTooLittle(std::size_t size, std::size_t raw) { return size > raw / 8 * 7; }

// Whether a sample at the start and one in the middle of `in` both save too little: a GridFS
// chunk of media, say, which would otherwise be compressed whole only to be thrown away. A
// document either of whose samples compresses is tried whole.
bool LooksIncompressible(std::string_view in, ZSTD_CCtx* cctx) {
  if (in.size() < 4 * kSampleBytes) return false;
  char out[ZSTD_COMPRESSBOUND(kSampleBytes)];
  for (std::size_t at : {std::size_t{0}, in.size() / 2}) {
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
    const std::size_t n = ZSTD_compress2(cctx, out, sizeof(out), in.data() + at, kSampleBytes);
    if (ZSTD_isError(n) || !SavesTooLittle(n, kSampleBytes)) return false;
  }
  return true;
}

Status Corrupt(std::string_view why) {
  return Status(ErrorCode::kInternalError, "a stored record is corrupt: " + std::string(why));
}

}  // namespace

bool IsCompressedRecord(std::string_view stored) {
  return stored.size() >= sizeof(kZstdMagic) &&
         std::memcmp(stored.data(), kZstdMagic, sizeof(kZstdMagic)) == 0;
}

std::string CompressRecord(bson::DocumentView document) {
  std::string_view in = document.bytes();
  if (in.size() < kCompressRecordsFrom) return std::string();
  ZSTD_CCtx* cctx = ThreadContexts().compress;
  if (LooksIncompressible(in, cctx)) return std::string();
  // Uninitialised: zeroing a buffer of the document's size would cost more than the pages
  // the frame actually touches.
  const std::size_t bound = ZSTD_compressBound(in.size());
  std::unique_ptr<char[]> out(new char[bound]);
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
  ZSTD_CCtx_setPledgedSrcSize(cctx, in.size());
  std::size_t n = ZSTD_compress2(cctx, out.get(), bound, in.data(), in.size());
  // Only a bug (an undersized buffer) makes ZSTD_compress2 fail into a compressBound buffer.
  if (ZSTD_isError(n) || SavesTooLittle(n, in.size())) return std::string();
  return std::string(out.get(), n);
}

std::size_t RecordDocumentSize(std::string_view stored) {
  if (!IsCompressedRecord(stored)) return stored.size();
  unsigned long long size = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return 0;
  return static_cast<std::size_t>(size);
}

StatusWith<std::string> InflateRecord(std::string_view stored) {
  if (!IsCompressedRecord(stored)) return std::string(stored);
  const std::size_t size = RecordDocumentSize(stored);
  if (size < 5) return Corrupt("its zstd frame gives no document size");
  std::string document(size, '\0');
  std::size_t n = ZSTD_decompressDCtx(ThreadContexts().decompress, document.data(), size,
                                      stored.data(), stored.size());
  if (ZSTD_isError(n)) return Corrupt(ZSTD_getErrorName(n));
  if (n != size) return Corrupt("its zstd frame is shorter than its header says");
  return document;
}

bool RecordHolds(std::string_view stored, bson::DocumentView document) {
  std::string_view expected = document.bytes();
  if (!IsCompressedRecord(stored)) return stored == expected;
  if (RecordDocumentSize(stored) != expected.size()) return false;
  // A context of its own: streaming keeps a window as large as the document, which a
  // thread's reused context would then hold on to.
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  ZSTD_DCtx* dctx = context.get();
  if (dctx == nullptr) return false;
  char piece[64 * 1024];
  ZSTD_inBuffer in{stored.data(), stored.size(), 0};
  std::size_t compared = 0;
  while (true) {
    ZSTD_outBuffer out{piece, sizeof(piece), 0};
    std::size_t left = ZSTD_decompressStream(dctx, &out, &in);
    if (ZSTD_isError(left)) return false;
    if (out.pos > expected.size() - compared ||
        std::memcmp(piece, expected.data() + compared, out.pos) != 0) {
      return false;
    }
    compared += out.pos;
    if (left == 0) return compared == expected.size();
    if (out.pos == 0 && in.pos == in.size) return false;  // truncated
  }
}

}  // namespace quarry::storage
