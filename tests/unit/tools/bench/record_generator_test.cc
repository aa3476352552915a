// The record generator: bench/storage_insert's document shape at an exact size.
#include "tools/bench/record_generator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quarry::tools::bench {
namespace {

std::vector<std::string> Keys(const bson_t& doc) {
  std::vector<std::string> keys;
  bson_iter_t iter;
  if (bson_iter_init(&iter, &doc)) {
    while (bson_iter_next(&iter)) keys.emplace_back(bson_iter_key(&iter));
  }
  return keys;
}

TEST(RecordGeneratorTest, RecordsHaveExactlyTheRequestedSize) {
  for (std::size_t target : {200, 1'000, 4'000}) {
    RecordGenerator generator({.target_bytes = target});
    DocumentSet set = GenerateCount(generator, 100);
    for (std::size_t i = 0; i < set.size(); ++i) {
      ASSERT_EQ(set.Bytes(i).size(), target) << "document " << i;
    }
  }
}

TEST(RecordGeneratorTest, RecordsHaveTheStorageBenchmarksFieldsInOrder) {
  RecordGenerator generator({});
  DocumentSet set = GenerateCount(generator, 1);
  bson_t doc;
  set.View(0, &doc);
  EXPECT_EQ(Keys(doc),
            (std::vector<std::string>{"_id", "seq", "name", "score", "created", "tags", "text"}));
  std::size_t offset;
  EXPECT_TRUE(bson_validate(&doc, BSON_VALIDATE_UTF8, &offset));
}

TEST(RecordGeneratorTest, SameSeedGivesTheSameRecords) {
  RecordGenerator a({.seed = 3});
  RecordGenerator b({.seed = 3});
  DocumentSet x = GenerateCount(a, 20);
  DocumentSet y = GenerateCount(b, 20);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(std::ranges::equal(x.Bytes(i), y.Bytes(i)));
  }
}

TEST(RecordGeneratorTest, TooSmallATargetGivesRecordsWithEmptyText) {
  RecordGenerator generator({.target_bytes = 10});
  DocumentSet set = GenerateCount(generator, 1);
  bson_t doc;
  set.View(0, &doc);
  bson_iter_t iter;
  ASSERT_TRUE(bson_iter_init_find(&iter, &doc, "text"));
  std::uint32_t length = 99;
  bson_iter_utf8(&iter, &length);
  EXPECT_EQ(length, 0u);
}

TEST(RecordGeneratorTest, ObjectIdsIncreaseWithIndexAndCarryIntoTheTime) {
  bson_oid_t a;
  bson_oid_t b;
  bson_oid_t c;
  MakeObjectId(1, 0xFFFFFE, &a);
  MakeObjectId(1, 0xFFFFFF, &b);
  MakeObjectId(1, 0x1000000, &c);
  EXPECT_LT(bson_oid_compare(&a, &b), 0);
  EXPECT_LT(bson_oid_compare(&b, &c), 0);
  bson_oid_t other_seed;
  MakeObjectId(2, 0xFFFFFE, &other_seed);
  EXPECT_FALSE(bson_oid_equal(&a, &other_seed));
}

}  // namespace
}  // namespace quarry::tools::bench
