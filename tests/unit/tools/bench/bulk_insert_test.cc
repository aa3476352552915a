// How a large bulk write is cut into insert messages.
#include "tools/bench/bulk_insert.h"

#include <gtest/gtest.h>

#include "tools/bench/record_generator.h"

namespace quarry::tools::bench {
namespace {

using Slices = std::vector<std::pair<std::size_t, std::size_t>>;

DocumentSet Records(std::size_t count, std::size_t bytes) {
  RecordGenerator generator({.target_bytes = bytes});
  return GenerateCount(generator, count);
}

TEST(BulkInsertTest, SlicesRespectTheDocumentLimit) {
  DocumentSet docs = Records(25, 200);
  EXPECT_EQ(MessageSlices(docs, 25, 10, 1'000'000), (Slices{{0, 10}, {10, 20}, {20, 25}}));
}

TEST(BulkInsertTest, SlicesRespectTheByteLimit) {
  DocumentSet docs = Records(10, 1'000);
  EXPECT_EQ(MessageSlices(docs, 10, 100, 3'500), (Slices{{0, 3}, {3, 6}, {6, 9}, {9, 10}}));
}

TEST(BulkInsertTest, ADocumentLargerThanTheByteLimitGetsASliceOfItsOwn) {
  DocumentSet docs = Records(3, 1'000);
  EXPECT_EQ(MessageSlices(docs, 3, 100, 500), (Slices{{0, 1}, {1, 2}, {2, 3}}));
}

TEST(BulkInsertTest, SlicesCoverOnlyTheFirstCountDocuments) {
  DocumentSet docs = Records(10, 200);
  EXPECT_EQ(MessageSlices(docs, 4), (Slices{{0, 4}}));
  EXPECT_TRUE(MessageSlices(docs, 0).empty());
  EXPECT_EQ(MessageSlices(docs, 50), (Slices{{0, 10}}));
}

TEST(BulkInsertTest, TwoHundredThousandOneKilobyteDocumentsTakeFiveMessages) {
  DocumentSet docs = Records(200'000, 1'000);
  Slices slices = MessageSlices(docs, docs.size());
  ASSERT_EQ(slices.size(), 5u);  // as the driver splits 200 MB at maxMessageSizeBytes
  EXPECT_EQ(slices.back().second, 200'000u);
}

TEST(BulkInsertTest, WriteModesAreNamedAsWriteConcerns) {
  EXPECT_EQ(WriteModeName(WriteMode::kUnacknowledged), "w:0");
  EXPECT_EQ(WriteModeName(WriteMode::kAcknowledged), "w:1");
  EXPECT_EQ(WriteModeName(WriteMode::kJournaled), "j:true");
}

}  // namespace
}  // namespace quarry::tools::bench
