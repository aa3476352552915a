// The zstd frames large records are stored as: told apart from BSON, inflated exactly, and
// compared with a document without inflating it whole.
#include "storage/record_compression.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::LargeDocument;

std::string RandomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

// A document as GridFS stores a chunk of a media file: a few fields, then bytes that do not
// compress.
bson::Document MediaChunk(std::size_t bytes) {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", 1).AppendInt32("n", 0);
  b.AppendBinary("data", 0, RandomBytes(bytes, 7));
  return std::move(b).Finish();
}

TEST(RecordCompressionTest, AFrameInflatesToTheDocumentAndIsSmaller) {
  bson::Document doc = LargeDocument(1, 1 << 20);
  std::string frame = CompressRecord(doc);
  EXPECT_TRUE(IsCompressedRecord(frame));
  EXPECT_LT(frame.size(), doc.size() / 3);
  EXPECT_EQ(RecordDocumentSize(frame), doc.size());
  auto inflated = InflateRecord(frame);
  ASSERT_TRUE(inflated.ok()) << inflated.status().ToString();
  EXPECT_EQ(inflated.value(), doc.bytes());
}

TEST(RecordCompressionTest, PlainBsonIsNeverTakenForAFrame) {
  bson::Document doc = LargeDocument(1, 200);
  EXPECT_FALSE(IsCompressedRecord(doc.bytes()));
  EXPECT_EQ(RecordDocumentSize(doc.bytes()), doc.size());
  EXPECT_EQ(InflateRecord(doc.bytes()).value(), doc.bytes());
  EXPECT_TRUE(RecordHolds(doc.bytes(), doc));
}

TEST(RecordCompressionTest, RecordHoldsComparesTheWholeInflatedDocument) {
  bson::Document doc = LargeDocument(1, 300 << 10);
  std::string frame = CompressRecord(doc);
  EXPECT_TRUE(RecordHolds(frame, doc));
  // Same size, one value different, far past the first piece the comparison inflates.
  std::string changed(doc.bytes());
  changed[changed.size() - 20] ^= 1;
  EXPECT_FALSE(RecordHolds(frame, bson::DocumentView(changed.data())));
  EXPECT_FALSE(RecordHolds(frame, LargeDocument(1, 100 << 10)));
  EXPECT_FALSE(RecordHolds(frame.substr(0, frame.size() / 2), doc));
}

TEST(RecordCompressionTest, MediaThatDoesNotCompressStaysBson) {
  EXPECT_TRUE(CompressRecord(MediaChunk(255 << 10)).empty());
  EXPECT_TRUE(CompressRecord(MediaChunk(3 << 20)).empty());
}

TEST(RecordCompressionTest, ADocumentThatOpensWithMediaIsStillCompressed) {
  bson::Document text = LargeDocument(1, 1 << 20);
  bson::DocumentBuilder b;
  b.AppendBinary("thumbnail", 0, RandomBytes(100 << 10, 3));
  b.AppendDocument("body", text);
  bson::Document doc = std::move(b).Finish();
  std::string frame = CompressRecord(doc);
  ASSERT_TRUE(IsCompressedRecord(frame));
  EXPECT_LT(frame.size(), doc.size() / 2);
  EXPECT_EQ(InflateRecord(frame).value(), doc.bytes());
}

TEST(RecordCompressionTest, ACorruptFrameIsAnErrorNotADocument) {
  std::string frame = CompressRecord(LargeDocument(1, 200 << 10));
  std::string damaged = frame.substr(0, frame.size() - 100);
  auto inflated = InflateRecord(damaged);
  EXPECT_EQ(inflated.status().code(), ErrorCode::kInternalError);
  EXPECT_NE(inflated.status().reason().find("corrupt"), std::string::npos);
}

}  // namespace
}  // namespace quarry::storage
