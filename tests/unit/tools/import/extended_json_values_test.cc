#include "tools/import/extended_json_values.h"

#include <gtest/gtest.h>

namespace quarry::tools::importing {
namespace {

TEST(DecodeBase64, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(DecodeBase64("aGVsbG8="), "hello");
  EXPECT_EQ(DecodeBase64("aGVsbG8"), "hello");
  EXPECT_EQ(DecodeBase64("aGk="), "hi");
  EXPECT_EQ(DecodeBase64(""), "");
  EXPECT_EQ(DecodeBase64("//8="), std::string("\xff\xff"));
}

TEST(DecodeBase64, RejectsForeignCharactersAndImpossibleLengths) {
  EXPECT_FALSE(DecodeBase64("aGV*bG8="));
  EXPECT_FALSE(DecodeBase64("a"));
}

TEST(ParseHexSubtype, ReadsOneOrTwoDigits) {
  EXPECT_EQ(ParseHexSubtype("0"), 0);
  EXPECT_EQ(ParseHexSubtype("04"), 4);
  EXPECT_EQ(ParseHexSubtype("80"), 0x80);
  EXPECT_FALSE(ParseHexSubtype(""));
  EXPECT_FALSE(ParseHexSubtype("100"));
  EXPECT_FALSE(ParseHexSubtype("g"));
}

TEST(DecodeHex, DecodesPairs) {
  EXPECT_EQ(DecodeHex("0a1B"), std::string("\x0a\x1b"));
  EXPECT_FALSE(DecodeHex("abc"));
  EXPECT_FALSE(DecodeHex("zz"));
}

TEST(ParseIsoDateMillis, ReadsUtcOffsetsAndFractions) {
  EXPECT_EQ(ParseIsoDateMillis("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseIsoDateMillis("1970-01-01T00:00:00.001Z"), 1);
  EXPECT_EQ(ParseIsoDateMillis("2024-02-29T12:34:56.789Z"), 1709210096789);
  EXPECT_EQ(ParseIsoDateMillis("2024-02-29T13:34:56.789+01:00"), 1709210096789);
  EXPECT_EQ(ParseIsoDateMillis("2024-02-29T11:34:56.789-0100"), 1709210096789);
  EXPECT_EQ(ParseIsoDateMillis("2024-02-29T12:34:56.7891234Z"), 1709210096789);
  EXPECT_EQ(ParseIsoDateMillis("2024-02-29"), 1709164800000);
  EXPECT_EQ(ParseIsoDateMillis("1969-12-31T23:59:59Z"), -1000);
}

TEST(ParseIsoDateMillis, RejectsInvalidDates) {
  EXPECT_FALSE(ParseIsoDateMillis("2023-02-29T00:00:00Z"));
  EXPECT_FALSE(ParseIsoDateMillis("2024-13-01T00:00:00Z"));
  EXPECT_FALSE(ParseIsoDateMillis("2024-01-01T24:00:00Z"));
  EXPECT_FALSE(ParseIsoDateMillis("2024-01-01T00:00:00"));  // no zone
  EXPECT_FALSE(ParseIsoDateMillis("yesterday"));
  EXPECT_FALSE(ParseIsoDateMillis("2024-01-01T00:00:00Zjunk"));
}

}  // namespace
}  // namespace quarry::tools::importing
