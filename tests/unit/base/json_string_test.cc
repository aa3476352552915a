// QuoteJson: the JSON string literal of log lines and the quarry tool's --json output.
#include "base/json_string.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry {
namespace {

TEST(JsonStringTest, QuotesPlainText) { EXPECT_EQ(QuoteJson("shop.orders"), "\"shop.orders\""); }

TEST(JsonStringTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(QuoteJson("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(QuoteJson("line\nnext\r\ttab"), "\"line\\nnext\\r\\ttab\"");
  EXPECT_EQ(QuoteJson(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
}

TEST(JsonStringTest, KeepsUtf8AsIs) { EXPECT_EQ(QuoteJson("caf\xc3\xa9"), "\"caf\xc3\xa9\""); }

}  // namespace
}  // namespace quarry
