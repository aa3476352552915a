// PackedBytes: entries read back as written, through replacements, emptying and the rewrite
// that drops replaced bytes.
#include "vector/packed_bytes.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bson/json.h"

namespace quarry::vector {
namespace {

TEST(PackedBytesTest, EntriesReadBackAsSetAndEmptyOnesAreEmpty) {
  PackedBytes packed;
  packed.Append("first");
  packed.Append({});
  packed.Append(std::string("a\0b", 3));
  EXPECT_EQ(packed.size(), 3u);
  EXPECT_EQ(packed.Get(0), "first");
  EXPECT_EQ(packed.Get(1), "");
  EXPECT_EQ(packed.Get(2), std::string_view("a\0b", 3));
  packed.Set(0, {});
  packed.Set(1, "second");
  EXPECT_EQ(packed.Get(0), "");
  EXPECT_EQ(packed.Get(1), "second");
  packed.Clear();
  EXPECT_EQ(packed.size(), 0u);
}

TEST(PackedBytesTest, DocumentsAreViewedInPlaceAndAnEmptyEntryIsTheEmptyDocument) {
  bson::Document doc = bson::FromJson(R"({"genre": "x", "n": 3})").value();
  PackedBytes packed;
  packed.Append(doc.view().bytes());
  packed.Append({});
  EXPECT_EQ(packed.Document(0).ToJson(), doc.view().ToJson());
  EXPECT_TRUE(packed.Document(1).empty());
}

TEST(PackedBytesTest, ReplacedBytesAreDroppedWhileEveryEntryKeepsItsValue) {
  std::mt19937 rng(5);
  PackedBytes packed;
  std::vector<std::string> expected(500);
  for (std::string& value : expected) {
    value = std::string(rng() % 200, static_cast<char>('a' + rng() % 26));
    packed.Append(value);
  }
  std::size_t largest = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::size_t index = rng() % expected.size();
    expected[index] = std::string(rng() % 200, static_cast<char>('a' + rng() % 26));
    packed.Set(index, expected[index]);
    largest = std::max(largest, packed.buffer_size());
  }
  for (std::size_t index = 0; index < expected.size(); ++index) {
    ASSERT_EQ(packed.Get(index), expected[index]) << index;
  }
  // Live bytes are about 500 * (100 + 4); without the rewrite 20000 replacements would hold
  // about 2 MB.
  EXPECT_LT(largest, 300u * 1024);
}

}  // namespace
}  // namespace quarry::vector
