// Sizes and lists given on the command line.
#include "tools/client/byte_size.h"

#include <gtest/gtest.h>

namespace quarry::tools::client {
namespace {

std::size_t Size(const char* text) {
  auto parsed = ParseByteSize(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
  return parsed.ok() ? parsed.value() : 0;
}

TEST(ByteSizeTest, DecimalUnitsArePowersOfAThousand) {
  EXPECT_EQ(Size("1kb"), 1000u);
  EXPECT_EQ(Size("1KB"), 1000u);
  EXPECT_EQ(Size("2k"), 2000u);
  EXPECT_EQ(Size("1.5mb"), 1'500'000u);
  EXPECT_EQ(Size("1 GB"), 1'000'000'000u);
}

TEST(ByteSizeTest, BinaryUnitsArePowersOf1024) {
  EXPECT_EQ(Size("1kib"), 1024u);
  EXPECT_EQ(Size("4KiB"), 4096u);
  EXPECT_EQ(Size("1mib"), 1'048'576u);
}

TEST(ByteSizeTest, ABareNumberOrBIsBytes) {
  EXPECT_EQ(Size("512"), 512u);
  EXPECT_EQ(Size("512b"), 512u);
}

TEST(ByteSizeTest, MalformedOrZeroSizesAreRejected) {
  for (const char* bad : {"", "kb", "1xb", "-1", "0", "0.1", "1..2kb", "1 k b"}) {
    EXPECT_EQ(ParseByteSize(bad).status().code(), ErrorCode::kBadValue) << bad;
  }
}

TEST(ByteSizeTest, ListsSplitOnCommasAndDropEmptyItems) {
  EXPECT_EQ(SplitList("none, snappy,,zstd "), (std::vector<std::string>{"none", "snappy", "zstd"}));
  EXPECT_TRUE(SplitList("").empty());
}

}  // namespace
}  // namespace quarry::tools::client
