#include "tools/export/csv_writer.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::tools::exporting {
namespace {

std::string Field(std::string_view text) {
  std::string out;
  AppendCsvField(text, &out);
  return out;
}

// Builds a document from relaxed Extended JSON; the tests own the document.
class Document {
 public:
  explicit Document(const char* json) {
    bson_error_t error;
    doc_ = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json), -1, &error);
    EXPECT_NE(doc_, nullptr) << error.message;
  }
  ~Document() { bson_destroy(doc_); }
  const bson_t& operator*() const { return *doc_; }

 private:
  bson_t* doc_;
};

TEST(CsvFieldTest, PlainTextIsNotQuoted) {
  EXPECT_EQ(Field("hello world"), "hello world");
  EXPECT_EQ(Field(""), "");
}

TEST(CsvFieldTest, CommaQuoteCrAndLfAreQuotedWithQuotesDoubled) {
  EXPECT_EQ(Field("a,b"), "\"a,b\"");
  EXPECT_EQ(Field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(Field("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(Field("cr\rhere"), "\"cr\rhere\"");
  EXPECT_EQ(Field("\""), "\"\"\"\"");
}

TEST(CsvFormatterTest, HeaderLineListsFieldsInOrder) {
  CsvFormatter formatter({"name", "address.city", "a,b"}, true);
  std::string out;
  formatter.Begin(&out);
  EXPECT_EQ(out, "name,address.city,\"a,b\"\n");
}

TEST(CsvFormatterTest, NoHeaderLineWritesNothingFirst) {
  CsvFormatter formatter({"name"}, false);
  std::string out;
  formatter.Begin(&out);
  EXPECT_EQ(out, "");
}

TEST(CsvFormatterTest, RowLooksUpDottedPathsAndLeavesMissingFieldsEmpty) {
  CsvFormatter formatter({"name", "address.city", "tags.1", "missing", "n"}, true);
  Document doc(R"({"name": "Ann, Jr.", "address": {"city": "Oslo"}, "tags": ["x", "y"],
                   "n": 3})");
  std::string out;
  formatter.Add(*doc, &out);
  formatter.Finish(&out);
  EXPECT_EQ(out, "\"Ann, Jr.\",Oslo,y,,3\n");
}

TEST(CsvFormatterTest, SubDocumentIsQuotedRelaxedJson) {
  CsvFormatter formatter({"address"}, true);
  Document doc(R"({"address": {"city": "Oslo", "zip": 150}})");
  std::string out;
  formatter.Add(*doc, &out);
  EXPECT_EQ(out, "\"{\"\"city\"\":\"\"Oslo\"\",\"\"zip\"\":150}\"\n");
}

}  // namespace
}  // namespace quarry::tools::exporting
