// The text and JSON forms of a result table.
#include "tools/client/result_table.h"

#include <bson/bson.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace quarry::tools::client {
namespace {

ResultTable SampleTable() {
  ResultTable table;
  table.benchmark = "sample";
  table.title = "A sample";
  table.parameters = {{"uri", std::string("mongodb://h:1")}, {"documents", std::int64_t{3}}};
  table.columns = {{"name", "name"}, {"count", "count"}, {"rate/s", "rate", 1}};
  table.rows = {{std::string("alpha"), std::int64_t{5}, 1234.56},
                {std::string("a longer name"), std::int64_t{12345}, 2.0},
                {std::string("none"), Cell(), Cell()}};
  table.notes = {"a note"};
  return table;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ResultTableTest, TextStartsWithTitleAndParameters) {
  std::vector<std::string> lines = Lines(FormatText(SampleTable()));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "A sample");
  EXPECT_EQ(lines[1], "uri: mongodb://h:1  documents: 3");
  EXPECT_EQ(lines[2], "");
}

TEST(ResultTableTest, TextAlignsTextLeftAndNumbersRight) {
  std::vector<std::string> lines = Lines(FormatText(SampleTable()));
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_EQ(lines[3], "name           count  rate/s");
  EXPECT_EQ(lines[4], "-------------  -----  ------");
  EXPECT_EQ(lines[5], "alpha              5  1234.6");
  EXPECT_EQ(lines[6], "a longer name  12345     2.0");
  EXPECT_EQ(lines[7], "none               -       -");
  EXPECT_EQ(lines[8], "");
  EXPECT_EQ(lines[9], "a note");
}

TEST(ResultTableTest, DoublesUseTheColumnsDecimalsAndNonFiniteShowsADash) {
  EXPECT_EQ(FormatCell(1.23456, Column{"x", "x", 3}), "1.235");
  EXPECT_EQ(FormatCell(2.5, Column{"x", "x", 0}), "2");
  EXPECT_EQ(FormatCell(std::nan(""), Column{"x", "x", 1}), "-");
  EXPECT_EQ(FormatCell(Cell(), Column{"x", "x", 1}), "-");
}

TEST(ResultTableTest, JsonIsAnObjectWithOneKeyedObjectPerRow) {
  std::string json = FormatJson(SampleTable());
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  ASSERT_NE(doc, nullptr) << error.message << "\n" << json;
  bson_iter_t iter;
  bson_iter_t field;
  ASSERT_TRUE(bson_iter_init(&iter, doc));
  ASSERT_TRUE(bson_iter_find_descendant(&iter, "rows.1.count", &field));
  EXPECT_EQ(bson_iter_as_int64(&field), 12345);
  ASSERT_TRUE(bson_iter_init(&iter, doc));
  ASSERT_TRUE(bson_iter_find_descendant(&iter, "rows.0.rate", &field));
  EXPECT_DOUBLE_EQ(bson_iter_double(&field), 1234.56);
  ASSERT_TRUE(bson_iter_init(&iter, doc));
  ASSERT_TRUE(bson_iter_find_descendant(&iter, "rows.2.rate", &field));
  EXPECT_EQ(bson_iter_type(&field), BSON_TYPE_NULL);
  ASSERT_TRUE(bson_iter_init(&iter, doc));
  ASSERT_TRUE(bson_iter_find_descendant(&iter, "parameters.uri", &field));
  EXPECT_STREQ(bson_iter_utf8(&field, nullptr), "mongodb://h:1");
  ASSERT_TRUE(bson_iter_init(&iter, doc));
  ASSERT_TRUE(bson_iter_find_descendant(&iter, "columns.2.heading", &field));
  EXPECT_STREQ(bson_iter_utf8(&field, nullptr), "rate/s");
  bson_destroy(doc);
}

TEST(ResultTableTest, JsonStringsEscapeQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonString("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
}

TEST(ResultTableTest, NonFiniteDoublesAreNullInJson) {
  ResultTable table;
  table.columns = {{"x", "x", 1}};
  table.rows = {{std::numeric_limits<double>::infinity()}};
  EXPECT_NE(FormatJson(table).find("{\"x\":null}"), std::string::npos);
}

TEST(ResultTableTest, ColumnIndexFindsKeysAndReportsMissingOnes) {
  ResultTable table = SampleTable();
  EXPECT_EQ(table.ColumnIndex("count"), 1u);
  EXPECT_EQ(table.ColumnIndex("nope"), table.columns.size());
}

}  // namespace
}  // namespace quarry::tools::client
