#include "tools/export/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::tools::exporting {
namespace {

std::string Compact(std::string_view json) {
  std::string out;
  AppendCompactJson(json, &out);
  return out;
}

std::string Indented(std::string_view json) {
  std::string out;
  AppendIndentedJson(json, &out);
  return out;
}

TEST(JsonTextTest, CompactDropsSpaceBetweenTokensOnly) {
  EXPECT_EQ(Compact(R"({ "a b" : 1, "c" : [ 1, 2 ] })"), R"({"a b":1,"c":[1,2]})");
}

TEST(JsonTextTest, CompactKeepsEscapedQuotesAndBackslashesInStrings) {
  EXPECT_EQ(Compact(R"({ "s" : "x \" , { } \\", "t" : "\\" })"),
            R"({"s":"x \" , { } \\","t":"\\"})");
}

TEST(JsonTextTest, IndentPutsEachMemberOnItsOwnLine) {
  EXPECT_EQ(Indented(R"({ "a" : 1, "b" : { "c" : [ 1, 2 ] } })"),
            "{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"c\": [\n\t\t\t1,\n\t\t\t2\n\t\t]\n\t}\n}");
}

TEST(JsonTextTest, IndentLeavesBracesCommasAndColonsInStringsAlone) {
  EXPECT_EQ(Indented(R"({"s":"{[a, b]: c}"})"), "{\n\t\"s\": \"{[a, b]: c}\"\n}");
}

TEST(JsonTextTest, IndentHandlesEscapedQuoteBeforeBrace) {
  EXPECT_EQ(Indented(R"({"s":"q\"}","t":"\\"})"), "{\n\t\"s\": \"q\\\"}\",\n\t\"t\": \"\\\\\"\n}");
}

TEST(JsonTextTest, IndentKeepsEmptyObjectsAndArraysOnOneLine) {
  EXPECT_EQ(Indented(R"({ "o" : { }, "a" : [ ], "x" : [ { } ] })"),
            "{\n\t\"o\": {},\n\t\"a\": [],\n\t\"x\": [\n\t\t{}\n\t]\n}");
  EXPECT_EQ(Indented("{ }"), "{}");
}

}  // namespace
}  // namespace quarry::tools::exporting
