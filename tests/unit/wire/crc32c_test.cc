#include "wire/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::wire {
namespace {

TEST(Crc32cTest, MatchesTheCastagnoliCheckValue) { EXPECT_EQ(Crc32c("123456789"), 0xE3069283u); }

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);  // RFC 3720 B.4
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
}

}  // namespace
}  // namespace quarry::wire
