#include "tools/export/export_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace quarry::tools::exporting {
namespace {

std::string Json(const client::BsonPtr& doc) {
  char* json = bson_as_relaxed_extended_json(doc.get(), nullptr);
  std::string text = json;
  bson_free(json);
  return text;
}

ExportOptions Options() {
  ExportOptions options;
  options.collection = "c";
  return options;
}

TEST(ExportOptionsTest, DefaultsExportJsonOfEveryDocument) {
  auto plan = PlanExport(Options());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan.value().database, "");
  EXPECT_EQ(plan.value().type, OutputType::kJson);
  EXPECT_EQ(plan.value().json_format, JsonFormat::kRelaxed);
  EXPECT_EQ(Json(plan.value().filter), "{ }");
  EXPECT_EQ(plan.value().projection.get(), nullptr);
  EXPECT_EQ(plan.value().sort.get(), nullptr);
}

TEST(ExportOptionsTest, CollectionIsRequired) {
  ExportOptions options;
  EXPECT_EQ(PlanExport(options).status().code(), ErrorCode::kBadValue);
}

TEST(ExportOptionsTest, UnknownTypeAndJsonFormatAreRejected) {
  ExportOptions options = Options();
  options.type = "xml";
  auto plan = PlanExport(options);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().reason().find("xml"), std::string_view::npos);
  options = Options();
  options.json_format = "legacy";
  EXPECT_FALSE(PlanExport(options).ok());
}

TEST(ExportOptionsTest, TypeIgnoresCase) {
  ExportOptions options = Options();
  options.type = "CSV";
  options.fields = "a";
  auto plan = PlanExport(options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan.value().type, OutputType::kCsv);
}

TEST(ExportOptionsTest, CsvRequiresAFieldList) {
  ExportOptions options = Options();
  options.type = "csv";
  auto plan = PlanExport(options);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().reason(), "CSV mode requires a field list");
}

TEST(ExportOptionsTest, BadQueryNamesTheFlag) {
  ExportOptions options = Options();
  options.query = "{x: }";
  auto plan = PlanExport(options);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().reason().rfind("--query '{x: }' is not valid", 0), 0u)
      << plan.status().reason();
}

TEST(ExportOptionsTest, QueryAndSortParseExtendedJson) {
  ExportOptions options = Options();
  options.query = R"({"d": {"$gte": {"$date": "2024-01-01T00:00:00Z"}}})";
  options.sort = R"({"b": -1, "a": 1})";
  auto plan = PlanExport(options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Json(plan.value().filter),
            R"({ "d" : { "$gte" : { "$date" : "2024-01-01T00:00:00Z" } } })");
  EXPECT_EQ(Json(plan.value().sort), R"({ "b" : -1, "a" : 1 })");
}

TEST(ExportOptionsTest, NegativeSkipOrLimitIsRejected) {
  ExportOptions options = Options();
  options.skip = -1;
  EXPECT_FALSE(PlanExport(options).ok());
  options = Options();
  options.limit = -5;
  EXPECT_FALSE(PlanExport(options).ok());
}

TEST(ExportOptionsTest, FieldListSplitsAndTrims) {
  EXPECT_EQ(SplitFieldList(" a, b.c ,,d "), (std::vector<std::string>{"a", "b.c", "d"}));
  EXPECT_TRUE(SplitFieldList("").empty());
  EXPECT_EQ(ParseFieldFile("a\r\n\n b.c \nd"), (std::vector<std::string>{"a", "b.c", "d"}));
}

TEST(ExportOptionsTest, ProjectionKeepsIdAndTopLevelNames) {
  EXPECT_EQ(Json(FieldProjection({"name", "tags.0", "address.city", "address.zip", "arr.$"})),
            R"({ "_id" : 1, "address" : 1, "arr.$" : 1, "name" : 1, "tags" : 1 })");
}

TEST(ExportOptionsTest, CsvColumnOfPositionalFieldDropsTheDollar) {
  ExportOptions options = Options();
  options.type = "csv";
  options.fields = "arr.$,x";
  auto plan = PlanExport(options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan.value().fields, (std::vector<std::string>{"arr", "x"}));
  EXPECT_EQ(Json(plan.value().projection), R"({ "_id" : 1, "arr.$" : 1, "x" : 1 })");
}

TEST(ExportOptionsTest, FieldFileIsReadAndExclusiveWithFields) {
  char path[] = "/tmp/quarry-fields-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "name\naddress.city\n";
  ExportOptions options = Options();
  options.type = "csv";
  options.field_file = path;
  auto plan = PlanExport(options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan.value().fields, (std::vector<std::string>{"name", "address.city"}));
  options.fields = "x";
  EXPECT_FALSE(PlanExport(options).ok());
  std::remove(path);
  options.fields.clear();
  EXPECT_FALSE(PlanExport(options).ok());
}

}  // namespace
}  // namespace quarry::tools::exporting
