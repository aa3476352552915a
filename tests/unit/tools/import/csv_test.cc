#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "import_test_util.h"
#include "tools/import/csv_columns.h"
#include "tools/import/csv_record_reader.h"
#include "tools/import/date_layout.h"

namespace quarry::tools::importing {
namespace {

using testing::Canonical;
using testing::ReadString;
using Records = std::vector<std::vector<std::string>>;

StatusWith<Records> ReadRecords(const std::string& input, Delimited format,
                                std::vector<std::int64_t>* lines = nullptr) {
  auto file = ReadString(input);
  CsvRecordReader reader(file.get(), format, 1 << 20);
  Records records;
  std::vector<std::string> fields;
  std::int64_t line = 0;
  while (true) {
    auto next = reader.Next(&fields, &line);
    if (!next.ok()) return next.status();
    if (!next.value()) return records;
    records.push_back(fields);
    if (lines != nullptr) lines->push_back(line);
  }
}

TEST(CsvRecordReader, QuotedFieldsHoldSeparatorsQuotesAndLineBreaks) {
  std::vector<std::int64_t> lines;
  auto records = ReadRecords("a,\"b,c\",\"say \"\"hi\"\"\"\r\n\n\"multi\nline\",,x\nlast",
                             Delimited::kCsv, &lines);
  ASSERT_TRUE(records.ok()) << records.status().reason();
  EXPECT_EQ(records.value(),
            (Records{{"a", "b,c", "say \"hi\""}, {"multi\nline", "", "x"}, {"last"}}));
  EXPECT_EQ(lines, (std::vector<std::int64_t>{1, 3, 5}));
}

TEST(CsvRecordReader, TsvSplitsOnTabsOnly) {
  auto records = ReadRecords("a\t\"b\"\tc,d\n", Delimited::kTsv);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records.value(), (Records{{"a", "\"b\"", "c,d"}}));
}

TEST(CsvRecordReader, NamesTheLineOfMalformedRecords) {
  EXPECT_EQ(ReadRecords("a\n\"open,b\n", Delimited::kCsv).status().reason(),
            "line 2: the input ends inside a quoted field");
  EXPECT_EQ(ReadRecords("a\n\"q\"x,b\n", Delimited::kCsv).status().reason(),
            "line 2: unexpected text after a closing quote");
}

std::string Row(const std::vector<std::string>& names, bool typed,
                const std::vector<std::string>& values, bool ignore_blanks = false,
                ParseGrace grace = ParseGrace::kStop) {
  auto columns = ParseColumns(names, typed);
  if (!columns.ok()) return "bad columns: " + std::string(columns.status().reason());
  ColumnConverter converter(std::move(columns.value()), ignore_blanks, grace);
  bson_t doc = BSON_INITIALIZER;
  RowOutcome outcome = converter.Convert(values, &doc);
  std::string result = outcome.kind == RowOutcome::kConverted ? Canonical(&doc)
                       : outcome.kind == RowOutcome::kSkipped ? "skipped: " + outcome.reason
                                                              : "failed: " + outcome.reason;
  bson_destroy(&doc);
  return result;
}

TEST(ColumnConverter, UntypedValuesBecomeNumbersWhenTheyAreNumbers) {
  EXPECT_EQ(Row({"a", "b", "c", "d", "e", "f"}, false, {"7", "4294967296", "2.5", "x1", "", "nan"}),
            R"({ "a" : { "$numberInt" : "7" }, "b" : { "$numberLong" : "4294967296" }, )"
            R"("c" : { "$numberDouble" : "2.5" }, "d" : "x1", "e" : "", "f" : "nan" })");
}

TEST(ColumnConverter, DottedNamesNestAndShortRowsLeaveFieldsOut) {
  EXPECT_EQ(
      Row({"user.name", "id", "user.age"}, false, {"ann", "1", "30"}),
      R"({ "user" : { "name" : "ann", "age" : { "$numberInt" : "30" } }, "id" : { "$numberInt" : "1" } })");
  EXPECT_EQ(Row({"a", "b.c"}, false, {"1"}), R"({ "a" : { "$numberInt" : "1" } })");
  EXPECT_EQ(Row({"a", "b.c"}, false, {"1", ""}, /*ignore_blanks=*/true),
            R"({ "a" : { "$numberInt" : "1" } })");
}

TEST(ColumnConverter, RowsWithMoreValuesThanColumnsFail) {
  EXPECT_EQ(Row({"a"}, false, {"1", "2"}),
            "failed: the record has 2 fields but only 1 columns are named");
}

TEST(ColumnConverter, TypedColumns) {
  EXPECT_EQ(
      Row({"s.string()", "i.int32()", "l.int64()", "d.double()", "m.decimal()", "b.boolean()",
           "t.date(2006-01-02 15:04:05)", "w.date_ms(yyyy-MM-dd)", "x.binary(hex)",
           "y.binary(base64)"},
          true,
          {"007", "-3", "12", "1.5", "0.10", "T", "2024-01-02 03:04:05", "2024-01-02", "0aff",
           "aGk="}),
      R"({ "s" : "007", "i" : { "$numberInt" : "-3" }, "l" : { "$numberLong" : "12" }, )"
      R"("d" : { "$numberDouble" : "1.5" }, "m" : { "$numberDecimal" : "0.10" }, "b" : true, )"
      R"("t" : { "$date" : { "$numberLong" : "1704164645000" } }, "w" : { "$date" : { "$numberLong" : "1704153600000" } }, )"
      R"("x" : { "$binary" : { "base64" : "Cv8=", "subType" : "00" } }, "y" : { "$binary" : { "base64" : "aGk=", "subType" : "00" } } })");
}

TEST(ColumnConverter, ParseGraceDecidesWhatABadValueDoes) {
  const std::vector<std::string> names = {"a.int32()", "b.string()"};
  EXPECT_EQ(Row(names, true, {"x", "y"}), "failed: column \"a\": cannot read \"x\" as its type");
  EXPECT_EQ(Row(names, true, {"x", "y"}, false, ParseGrace::kAutoCast),
            R"({ "a" : "x", "b" : "y" })");
  EXPECT_EQ(Row(names, true, {"x", "y"}, false, ParseGrace::kSkipField), R"({ "b" : "y" })");
  EXPECT_EQ(Row(names, true, {"x", "y"}, false, ParseGrace::kSkipRow).rfind("skipped: ", 0), 0u);
}

TEST(ParseColumns, RejectsConflictsRepeatsAndUnknownTypes) {
  EXPECT_EQ(Row({"a", "a.b"}, false, {}),
            "bad columns: column \"a.b\": conflicts with column \"a\"");
  EXPECT_EQ(Row({"a", "a"}, false, {}), "bad columns: column \"a\": named twice");
  EXPECT_EQ(Row({"a.int8()"}, true, {})
                .rfind("bad columns: column \"a\": type int8() is not supported", 0),
            0u);
  EXPECT_EQ(Row({"a"}, true, {}),
            "bad columns: column \"a\": --columnsHaveTypes needs name.type(), e.g. age.int32()");
  EXPECT_EQ(Row({"a.date(Mon 2006)"}, true, {}),
            "bad columns: column \"a\": the date layout \"Mon 2006\" uses \"Mon\", which is not "
            "supported");
}

TEST(DateLayout, GoLayouts) {
  auto layout = DateLayout::FromGo("Jan 2, 2006 at 3:04pm (-07:00)");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout.value().Parse("Feb 29, 2024 at 1:30pm (+01:00)"), 1709209800000);
  EXPECT_FALSE(layout.value().Parse("Feb 30, 2024 at 1:30pm (+01:00)"));
  auto rfc3339 = DateLayout::FromGo("2006-01-02T15:04:05.000Z07:00");
  ASSERT_TRUE(rfc3339.ok());
  EXPECT_EQ(rfc3339.value().Parse("1970-01-01T00:00:01.500Z"), 1500);
  EXPECT_FALSE(rfc3339.value().Parse("1970-01-01T00:00:01.500"));
}

TEST(DateLayout, MsLayouts) {
  auto layout = DateLayout::FromMs("dd/MM/yyyy HH:mm:ss.fff");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout.value().Parse("02/01/1970 00:00:00.250"), 86400250);
  EXPECT_FALSE(DateLayout::FromMs("yyyy-MM-dd zzz").ok());
}

}  // namespace
}  // namespace quarry::tools::importing
