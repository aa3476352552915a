// Query shapes: values left out, structure kept, as the plan cache's keys need.
#include "exec/query_shape.h"

#include <gtest/gtest.h>

#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Doc;

std::string Shape(std::string_view filter) { return FilterShape(Doc(filter)); }

TEST(QueryShapeTest, ValuesDoNotChangeTheShape) {
  EXPECT_EQ(Shape(R"({"a": 1, "b": "x"})"), Shape(R"({"a": 2, "b": "y"})"));
  EXPECT_EQ(Shape(R"({"a": {"$gt": 1, "$lt": 5}})"), Shape(R"({"a": {"$gt": 7, "$lt": 9}})"));
  EXPECT_EQ(Shape(R"({"$or": [{"a": 1}, {"b": 2}]})"), Shape(R"({"$or": [{"a": 3}, {"b": 4}]})"));
}

TEST(QueryShapeTest, FieldsOperatorsAndKindsOfValueDo) {
  EXPECT_NE(Shape(R"({"a": 1})"), Shape(R"({"b": 1})"));
  EXPECT_NE(Shape(R"({"a": 1})"), Shape(R"({"a": {"$gt": 1}})"));
  EXPECT_NE(Shape(R"({"a": 1})"), Shape(R"({"a": null})"));
  EXPECT_NE(Shape(R"({"a": 1})"), Shape(R"({"a": [1, 2]})"));
  EXPECT_NE(Shape(R"({"a": {"$exists": true}})"), Shape(R"({"a": {"$exists": false}})"));
  EXPECT_NE(Shape(R"({"a": {"$in": [1, 2]}})"), Shape(R"({"a": {"$in": [1]}})"));
  EXPECT_NE(Shape(R"({"$or": [{"a": 1}, {"b": 2}]})"), Shape(R"({"$or": [{"a": 1}]})"));
}

TEST(QueryShapeTest, SortAndProjectionArePartOfTheShape) {
  const bson::Document filter = Doc(R"({"a": 1})");
  const bson::Document by_b = Doc(R"({"b": 1})");
  auto sort = [](const bson::Document& spec) { return query::SortSpec::Parse(spec).value(); };
  EXPECT_NE(QueryShape(filter, sort(by_b), {}), QueryShape(filter, query::SortSpec(), {}));
  EXPECT_NE(QueryShape(filter, sort(by_b), {}), QueryShape(filter, sort(Doc(R"({"b": -1})")), {}));
  EXPECT_EQ(QueryShape(filter, sort(by_b), {}), QueryShape(filter, sort(Doc(R"({"b": 1.0})")), {}));
  EXPECT_NE(QueryShape(filter, query::SortSpec(), by_b), QueryShape(filter, query::SortSpec(), {}));
}

TEST(QueryShapeTest, HashesAreEightHexDigitsAndStable) {
  const std::string hash = ShapeHash("{a:v,}|s{}|p{}");
  EXPECT_EQ(hash.size(), 8u);
  EXPECT_EQ(hash.find_first_not_of("0123456789ABCDEF"), std::string::npos);
  EXPECT_EQ(hash, ShapeHash("{a:v,}|s{}|p{}"));
  EXPECT_NE(hash, ShapeHash("{b:v,}|s{}|p{}"));
}

}  // namespace
}  // namespace quarry::exec
