#include "wire/compression.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <random>
#include <string>

#include "base/endian.h"
#include "wire/message_header.h"

namespace quarry::wire {
namespace {

constexpr Compressor kAll[] = {Compressor::kNoop, Compressor::kSnappy, Compressor::kZlib,
                               Compressor::kZstd};

std::string Compressible(std::size_t size) {
  std::mt19937 rng(42);
  static const char* words[] = {"alpha", "beta", "gamma", "delta", "{\"_id\": ", "name", ", "};
  std::string out;
  while (out.size() < size) out += words[rng() % 7];
  out.resize(size);
  return out;
}

CompressionContext AllEnabled() {
  return CompressionContext(
      {Compressor::kNoop, Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd});
}

TEST(CompressorTest, NamesAndIdsMatchTheHandshake) {
  EXPECT_EQ(CompressorName(Compressor::kNoop), "noop");
  EXPECT_EQ(CompressorName(Compressor::kSnappy), "snappy");
  EXPECT_EQ(CompressorName(Compressor::kZlib), "zlib");
  EXPECT_EQ(CompressorName(Compressor::kZstd), "zstd");
  EXPECT_EQ(CompressorFromName("zstd"), Compressor::kZstd);
  EXPECT_EQ(CompressorFromName("snappy"), Compressor::kSnappy);
  EXPECT_EQ(CompressorFromName("lzma"), std::nullopt);
  EXPECT_EQ(CompressorFromId(2), Compressor::kZlib);
  EXPECT_EQ(CompressorFromId(0), Compressor::kNoop);
  EXPECT_EQ(CompressorFromId(4), std::nullopt);
  EXPECT_EQ(CompressorFromId(255), std::nullopt);
  EXPECT_EQ(static_cast<int>(Compressor::kSnappy), 1);
  EXPECT_EQ(static_cast<int>(Compressor::kZstd), 3);
}

TEST(CompressorTest, DefaultsAreTheThreeRealCodecs) {
  CompressionContext context;
  EXPECT_TRUE(context.IsEnabled(Compressor::kSnappy));
  EXPECT_TRUE(context.IsEnabled(Compressor::kZlib));
  EXPECT_TRUE(context.IsEnabled(Compressor::kZstd));
  EXPECT_FALSE(context.IsEnabled(Compressor::kNoop));
}

TEST(CompressionTest, EachCompressorRoundTripsSmallLargeAndEmptyInputs) {
  CompressionContext context = AllEnabled();
  for (std::size_t size :
       {std::size_t{0}, std::size_t{1}, std::size_t{5000}, std::size_t{1} << 20}) {
    const std::string input = Compressible(size);
    for (Compressor c : kAll) {
      SCOPED_TRACE(std::string(CompressorName(c)) + " size " + std::to_string(size));
      std::string compressed = "prefix";
      ASSERT_TRUE(context.Compress(c, input, &compressed).ok());
      ASSERT_EQ(compressed.substr(0, 6), "prefix");
      if (c != Compressor::kNoop && size >= 5000) {
        EXPECT_LT(compressed.size(), input.size() / 2);
      }
      std::string out = "head";
      Status s = context.Decompress(c, std::string_view(compressed).substr(6), size, &out);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(out, "head" + input);
    }
  }
}

TEST(CompressionTest, ReusedContextRoundTripsManyMessages) {
  CompressionContext context;
  for (int message_idx = 0; message_idx < 50; ++message_idx) {
    std::string input = Compressible(100 + message_idx * 37);
    std::string compressed;
    ASSERT_TRUE(context.Compress(Compressor::kZstd, input, &compressed).ok());
    std::string out;
    ASSERT_TRUE(context.Decompress(Compressor::kZstd, compressed, input.size(), &out).ok());
    EXPECT_EQ(out, input);
  }
}

TEST(CompressionTest, DecompressesZstdFrameWithoutContentSize) {
  // The Node driver's zstd frames omit the content size; decompression must use
  // uncompressedSize from the OP_COMPRESSED header.
  const std::string input = Compressible(70000);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  std::string frame(ZSTD_compressBound(input.size()), '\0');
  std::size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), input.data(), input.size());
  ZSTD_freeCCtx(cctx);
  ASSERT_FALSE(ZSTD_isError(n));
  frame.resize(n);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);

  CompressionContext context;
  std::string out;
  Status s = context.Decompress(Compressor::kZstd, frame, input.size(), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out, input);

  // Without a stored size, a lie in either direction is still caught.
  out.clear();
  EXPECT_EQ(context.Decompress(Compressor::kZstd, frame, input.size() - 1, &out).code(),
            ErrorCode::kProtocolError);
  out.clear();
  EXPECT_EQ(context.Decompress(Compressor::kZstd, frame, input.size() + 1, &out).code(),
            ErrorCode::kProtocolError);
}

TEST(CompressionTest, DisabledCompressorIsRejected) {
  CompressionContext context({Compressor::kZlib});
  std::string compressed;
  ASSERT_TRUE(context.Compress(Compressor::kSnappy, "hello hello hello", &compressed).ok());
  std::string out;
  Status s = context.Decompress(Compressor::kSnappy, compressed, 17, &out);
  EXPECT_EQ(s.code(), ErrorCode::kProtocolError);
  EXPECT_NE(s.reason().find("not enabled"), std::string_view::npos);
}

TEST(CompressionTest, UncompressedSizeThatLiesIsRejected) {
  CompressionContext context = AllEnabled();
  const std::string input = Compressible(4000);
  for (Compressor c : kAll) {
    SCOPED_TRACE(CompressorName(c));
    std::string compressed;
    ASSERT_TRUE(context.Compress(c, input, &compressed).ok());
    for (std::size_t claimed :
         {input.size() - 1, input.size() + 1, std::size_t{0}, std::size_t{40000000}}) {
      std::string out = "keep";
      Status s = context.Decompress(c, compressed, claimed, &out);
      EXPECT_EQ(s.code(), ErrorCode::kProtocolError) << claimed;
      EXPECT_EQ(out, "keep");
    }
  }
}

TEST(CompressionTest, CorruptPayloadsAreRejectedWithoutCrashing) {
  CompressionContext context = AllEnabled();
  const std::string input = Compressible(20000);
  std::mt19937 rng(7);
  for (Compressor c : {Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    SCOPED_TRACE(CompressorName(c));
    std::string compressed;
    ASSERT_TRUE(context.Compress(c, input, &compressed).ok());

    // Pure garbage.
    std::string garbage(300, '\0');
    for (char& ch : garbage) ch = static_cast<char>(rng());
    std::string out;
    EXPECT_FALSE(context.Decompress(c, garbage, input.size(), &out).ok());

    // Truncated.
    out.clear();
    EXPECT_FALSE(context
                     .Decompress(c, std::string_view(compressed).substr(0, compressed.size() / 2),
                                 input.size(), &out)
                     .ok());

    // Flipped bytes in the middle: must fail or (for snappy, which has no checksum) produce
    // exactly uncompressed_size bytes; never crash or overrun.
    for (int trial_idx = 0; trial_idx < 50; ++trial_idx) {
      std::string damaged = compressed;
      damaged[8 + rng() % (damaged.size() - 8)] ^= static_cast<char>(1 + rng() % 255);
      out.clear();
      Status s = context.Decompress(c, damaged, input.size(), &out);
      if (s.ok()) {
        EXPECT_EQ(out.size(), input.size());
      } else {
        EXPECT_TRUE(out.empty());
      }
    }
  }
}

TEST(CompressionTest, CompressMessageWrapsHeaderAndKeepsIds) {
  std::string message;
  MessageHeader header;
  header.message_length = 16 + 1000;
  header.request_id = 12;
  header.response_to = 34;
  header.op_code = static_cast<std::int32_t>(OpCode::kMsg);
  AppendHeader(header, &message);
  message += Compressible(1000);

  std::string wrapped = CompressMessage(message, Compressor::kZlib);
  MessageHeader outer = ReadHeader(wrapped.data());
  EXPECT_EQ(outer.message_length, static_cast<std::int32_t>(wrapped.size()));
  EXPECT_EQ(outer.request_id, 12);
  EXPECT_EQ(outer.response_to, 34);
  EXPECT_EQ(outer.op_code, 2012);
  EXPECT_EQ(LoadLittleEndianInt32(wrapped.data() + 16), 2013);
  EXPECT_EQ(LoadLittleEndianInt32(wrapped.data() + 20), 1000);
  EXPECT_EQ(wrapped[24], '\x02');
  EXPECT_LT(wrapped.size(), message.size());

  CompressionContext context;
  std::string payload;
  ASSERT_TRUE(
      context.Decompress(Compressor::kZlib, std::string_view(wrapped).substr(25), 1000, &payload)
          .ok());
  EXPECT_EQ(payload, message.substr(16));
}

}  // namespace
}  // namespace quarry::wire
