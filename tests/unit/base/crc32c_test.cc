// CRC-32C as OP_MSG and RocksDB's WAL use it: the standard checksum (so data that RocksDB's
// own implementation wrote reads with this one), at any length, alignment and split, by the
// CPU's instructions and by the byte tables alike.
#include "base/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "base/crc32c_internal.h"

namespace quarry {
namespace {

// The definition, a bit at a time: nothing shared with the code under test.
std::uint32_t BitwiseCrc(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFF;
  for (char c : bytes) {
    crc ^= static_cast<unsigned char>(c);
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78 : crc >> 1;
  }
  return ~crc;
}

std::string RandomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

struct Method {
  const char* name;
  std::uint32_t (*extend)(std::uint32_t, std::string_view);
  std::uint32_t (*combine)(std::uint32_t, std::uint32_t, std::size_t);
};

class Crc32cTest : public ::testing::TestWithParam<Method> {
 protected:
  std::uint32_t Crc(std::string_view bytes) const { return GetParam().extend(0, bytes); }
};

TEST_P(Crc32cTest, MatchesPublishedCheckValues) {
  EXPECT_EQ(Crc("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc(std::string(32, '\0')), 0x8A9136AAu);  // RFC 3720, B.4
  EXPECT_EQ(Crc(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(Crc(ascending), 0x46DD794Eu);
  EXPECT_EQ(Crc(""), 0u);
}

TEST_P(Crc32cTest, MatchesTheDefinitionAtEveryLengthAndAlignment) {
  const std::string bytes = RandomBytes(300, 1);
  for (std::size_t offset = 0; offset < 9; ++offset) {
    for (std::size_t length = 0; offset + length <= bytes.size(); length += 1 + length / 8) {
      std::string_view piece(bytes.data() + offset, length);
      ASSERT_EQ(Crc(piece), BitwiseCrc(piece)) << "offset " << offset << " length " << length;
    }
  }
  const std::string large = RandomBytes(1 << 20, 2);
  EXPECT_EQ(Crc(large), BitwiseCrc(large));
}

TEST_P(Crc32cTest, ExtendContinuesAcrossAnySplit) {
  const std::string bytes = RandomBytes(5000, 3);
  const std::uint32_t whole = Crc(bytes);
  for (std::size_t split : {0, 1, 7, 8, 9, 63, 64, 65, 2500, 4999, 5000}) {
    const std::uint32_t first = Crc(std::string_view(bytes).substr(0, split));
    EXPECT_EQ(GetParam().extend(first, std::string_view(bytes).substr(split)), whole)
        << "split at " << split;
  }
}

TEST_P(Crc32cTest, CombineGivesTheChecksumOfTheConcatenation) {
  const std::string bytes = RandomBytes(1 << 20, 4);
  for (std::size_t a : {0, 1, 13, 4096, 100000}) {
    for (std::size_t b : {0, 1, 2, 3, 4, 5, 7, 8, 255, 256, 32768, 99999, 900000}) {
      std::string_view first(bytes.data(), a);
      std::string_view second(bytes.data() + a, b);
      EXPECT_EQ(GetParam().combine(Crc(first), Crc(second), b),
                BitwiseCrc(std::string_view(bytes.data(), a + b)))
          << a << " then " << b;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Crc32cTest,
                         ::testing::Values(Method{"Chosen", &ExtendCrc32c, &CombineCrc32c},
                                           Method{"Table", &internal::ExtendCrc32cByTable,
                                                  &internal::CombineCrc32cByTable}),
                         [](const ::testing::TestParamInfo<Method>& info) {
                           return std::string(info.param.name);
                         });

TEST(Crc32cWholeTest, IsExtendFromZero) {
  const std::string bytes = RandomBytes(1000, 5);
  EXPECT_EQ(Crc32c(bytes), ExtendCrc32c(0, bytes));
}

}  // namespace
}  // namespace quarry
