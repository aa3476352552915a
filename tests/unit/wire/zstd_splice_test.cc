// Replies that reuse a stored zstd frame: the spliced message is one frame that any decoder
// turns back into exactly the reply, and replies the splice cannot serve are left to ordinary
// compression.
#include "wire/zstd_splice.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <memory>
#include <string>

#include "base/endian.h"
#include "bson/builder.h"
#include "wire/message_header.h"
#include "wire/reply.h"

namespace quarry::wire {
namespace {

// A document of about `bytes` bytes that compresses.
bson::Document Record(int id, std::size_t bytes) {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", id);
  b.OpenArray("items");
  for (std::size_t i = 0; b.size() < bytes; ++i) {
    b.OpenDocument(std::to_string(i))
        .AppendInt64("n", static_cast<std::int64_t>(i * 7919))
        .AppendString("name", "item " + std::to_string(i % 89))
        .Close();
  }
  b.Close();
  return std::move(b).Finish();
}

// `record` as storage returns it: with its zstd frame, at `level`.
bson::Document Stored(bson::Document record, int level) {
  std::string frame(ZSTD_compressBound(record.size()), '\0');
  frame.resize(
      ZSTD_compress(frame.data(), frame.size(), record.bytes().data(), record.size(), level));
  record.AddCompressedSpans(
      {{.offset = 0, .size = record.size(), .zstd_frame = std::make_shared<std::string>(frame)}});
  return record;
}

// A find reply around `docs`, with the envelope the server appends.
bson::Document FindReply(const std::vector<bson::Document>& docs) {
  bson::DocumentBuilder b;
  b.OpenDocument("cursor").OpenArray("firstBatch");
  for (std::size_t i = 0; i < docs.size(); ++i) b.AppendDocument(std::to_string(i), docs[i]);
  b.Close().AppendInt64("id", 0).AppendString("ns", "db.c").Close();
  bson::DocumentBuilder envelope(std::move(b).Finish());
  envelope.AppendDouble("ok", 1);
  return std::move(envelope).Finish();
}

// The payload a zstd decoder gets from the OP_COMPRESSED message `message`.
std::string Inflate(const std::string& message) {
  EXPECT_EQ(ReadHeader(message.data()).op_code, static_cast<std::int32_t>(OpCode::kCompressed));
  EXPECT_EQ(ReadHeader(message.data()).message_length, static_cast<std::int32_t>(message.size()));
  const std::size_t size = LoadLittleEndianInt32(message.data() + kHeaderSize + 4);
  EXPECT_EQ(static_cast<unsigned char>(message[kHeaderSize + 8]), 3);  // zstd
  std::string out(size, '\0');
  std::size_t n = ZSTD_decompress(out.data(), out.size(), message.data() + kHeaderSize + 9,
                                  message.size() - kHeaderSize - 9);
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  EXPECT_EQ(n, size);
  return out;
}

class ZstdSpliceTest : public ::testing::TestWithParam<int> {};

TEST_P(ZstdSpliceTest, TheSplicedFrameInflatesToTheReply) {
  bson::Document reply = FindReply({Stored(Record(1, 700 << 10), GetParam())});
  ASSERT_EQ(reply.compressed_spans().size(), 1u);
  std::string head = BuildOpMsgPrefix(7, 3, reply.size());
  std::optional<std::string> message = SpliceZstdMessage(head, reply);
  ASSERT_TRUE(message.has_value());
  EXPECT_LT(message->size(), reply.size() / 3);
  EXPECT_EQ(ReadHeader(message->data()).request_id, 7);
  EXPECT_EQ(ReadHeader(message->data()).response_to, 3);
  EXPECT_EQ(Inflate(*message), head.substr(kHeaderSize) + reply.bytes());
}

// Fast and strong levels use different block kinds and repeat offsets.
INSTANTIATE_TEST_SUITE_P(Levels, ZstdSpliceTest, ::testing::Values(-5, 1, 3, 19));

TEST(ZstdSpliceOtherTest, ADocumentLargerThanManyBlocksAndTheMaximumRawAroundIt) {
  bson::DocumentBuilder b;
  b.AppendString("before", std::string(kSpliceMaxRawBytes - 400, 'b'));
  b.AppendDocument("doc", Stored(Record(2, 3 << 20), 1));
  bson::Document reply = std::move(b).Finish();
  std::string head = BuildOpMsgPrefix(1, 1, reply.size());
  std::optional<std::string> message = SpliceZstdMessage(head, reply);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(Inflate(*message), head.substr(kHeaderSize) + reply.bytes());
}

TEST(ZstdSpliceOtherTest, RepliesItCannotServeAreLeftToOrdinaryCompression) {
  std::string head = BuildOpMsgPrefix(1, 1, 100);
  // No span, two spans, too many other bytes.
  EXPECT_FALSE(SpliceZstdMessage(head, FindReply({Record(1, 100 << 10)})).has_value());
  EXPECT_FALSE(SpliceZstdMessage(head, FindReply({Stored(Record(1, 100 << 10), 1),
                                                  Stored(Record(2, 100 << 10), 1)}))
                   .has_value());
  EXPECT_FALSE(SpliceZstdMessage(head, FindReply({Stored(Record(1, 100 << 10), 1),
                                                  Record(2, kSpliceMaxRawBytes)}))
                   .has_value());
  // A frame that is not of the span's bytes.
  bson::Document wrong = Record(1, 100 << 10);
  wrong.AddCompressedSpans({{.offset = 0,
                             .size = wrong.size(),
                             .zstd_frame = std::make_shared<std::string>("not a frame")}});
  EXPECT_FALSE(SpliceZstdMessage(head, FindReply({wrong})).has_value());
}

TEST(ZstdSpliceOtherTest, ContinuingADocumentDropsTheSpanThatCoversItsLength) {
  bson::DocumentBuilder b(Stored(Record(1, 100 << 10), 1));
  b.AppendInt32("extra", 1);
  EXPECT_TRUE(std::move(b).Finish().compressed_spans().empty());
}

}  // namespace
}  // namespace quarry::wire
