// $jsonSchema filters: the keywords collection validators use most.
#include <gtest/gtest.h>

#include "query/match/matcher.h"
#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;

bool Valid(std::string_view schema, std::string_view doc) {
  std::string filter = R"({"$jsonSchema": )";
  filter += schema;
  filter += "}";
  StatusWith<Matcher> matcher = Matcher::Parse(Doc(filter));
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString();
  return matcher.ok() && matcher.value().Matches(Doc(doc));
}

Status SchemaError(std::string_view schema) {
  std::string filter = R"({"$jsonSchema": )";
  filter += schema;
  filter += "}";
  return Matcher::Parse(Doc(filter)).status();
}

TEST(JsonSchemaTest, RequiredFieldsMustExist) {
  const char* schema = R"({"required": ["name", "age"]})";
  EXPECT_TRUE(Valid(schema, R"({"name": "x", "age": 3})"));
  EXPECT_FALSE(Valid(schema, R"({"name": "x"})"));
}

TEST(JsonSchemaTest, BsonTypeRestrictsProperties) {
  const char* schema =
      R"({"properties": {"age": {"bsonType": "int"}, "n": {"bsonType": "number"}}})";
  EXPECT_TRUE(Valid(schema, R"({"age": 3, "n": 1.5})"));
  EXPECT_FALSE(Valid(schema, R"({"age": "3"})"));
  EXPECT_TRUE(Valid(schema, R"({"other": 1})"));
}

TEST(JsonSchemaTest, JsonTypeNames) {
  const char* schema = R"({"properties": {"a": {"type": ["string", "null"]}}})";
  EXPECT_TRUE(Valid(schema, R"({"a": "s"})"));
  EXPECT_TRUE(Valid(schema, R"({"a": null})"));
  EXPECT_FALSE(Valid(schema, R"({"a": 1})"));
}

TEST(JsonSchemaTest, ArraysAreNotTraversedImplicitly) {
  const char* schema = R"({"properties": {"a": {"bsonType": "int"}}})";
  EXPECT_FALSE(Valid(schema, R"({"a": [1, 2]})"));
  EXPECT_TRUE(Valid(R"({"properties": {"a": {"bsonType": "array", "items": {"bsonType": "int"}}}})",
                    R"({"a": [1, 2]})"));
}

TEST(JsonSchemaTest, NumericBounds) {
  const char* schema =
      R"({"properties": {"n": {"minimum": 0, "maximum": 10, "exclusiveMaximum": true}}})";
  EXPECT_TRUE(Valid(schema, R"({"n": 0})"));
  EXPECT_FALSE(Valid(schema, R"({"n": 10})"));
  EXPECT_FALSE(Valid(schema, R"({"n": -1})"));
  EXPECT_TRUE(Valid(schema, R"({"n": "not a number"})"));
}

TEST(JsonSchemaTest, StringLengthAndPattern) {
  const char* schema =
      R"({"properties": {"s": {"minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"}}})";
  EXPECT_TRUE(Valid(schema, R"({"s": "ab"})"));
  EXPECT_FALSE(Valid(schema, R"({"s": "a"})"));
  EXPECT_FALSE(Valid(schema, R"({"s": "abcd"})"));
  EXPECT_FALSE(Valid(schema, R"({"s": "AB"})"));
  EXPECT_TRUE(Valid(R"({"properties": {"s": {"maxLength": 2}}})", R"({"s": "éé"})"));
}

TEST(JsonSchemaTest, EnumAndAdditionalProperties) {
  const char* schema =
      R"({"properties": {"_id": {}, "c": {"enum": ["red", "blue"]}}, "additionalProperties": false})";
  EXPECT_TRUE(Valid(schema, R"({"_id": 1, "c": "red"})"));
  EXPECT_FALSE(Valid(schema, R"({"_id": 1, "c": "green"})"));
  EXPECT_FALSE(Valid(schema, R"({"_id": 1, "d": 1})"));
}

TEST(JsonSchemaTest, ArrayKeywords) {
  const char* schema =
      R"({"properties": {"a": {"minItems": 1, "maxItems": 2, "uniqueItems": true}}})";
  EXPECT_TRUE(Valid(schema, R"({"a": [1, 2]})"));
  EXPECT_FALSE(Valid(schema, R"({"a": []})"));
  EXPECT_FALSE(Valid(schema, R"({"a": [1, 2, 3]})"));
  EXPECT_FALSE(Valid(schema, R"({"a": [1, 1]})"));
}

TEST(JsonSchemaTest, NestedObjectsAndCombinators) {
  const char* schema =
      R"({"properties": {"o": {"bsonType": "object", "required": ["x"], )"
      R"("properties": {"x": {"anyOf": [{"bsonType": "int"}, {"bsonType": "string"}]}}}}})";
  EXPECT_TRUE(Valid(schema, R"({"o": {"x": 1}})"));
  EXPECT_TRUE(Valid(schema, R"({"o": {"x": "s"}})"));
  EXPECT_FALSE(Valid(schema, R"({"o": {"x": 1.5}})"));
  EXPECT_FALSE(Valid(schema, R"({"o": {}})"));
  EXPECT_FALSE(Valid(R"({"not": {"required": ["a"]}})", R"({"a": 1})"));
  EXPECT_FALSE(
      Valid(R"({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]})", R"({"a": 1, "b": 1})"));
}

TEST(JsonSchemaTest, CombinesWithOtherFilterConditions) {
  StatusWith<Matcher> matcher =
      Matcher::Parse(Doc(R"({"$jsonSchema": {"required": ["a"]}, "a": {"$gt": 1}})"));
  ASSERT_TRUE(matcher.ok());
  EXPECT_TRUE(matcher.value().Matches(Doc(R"({"a": 2})")));
  EXPECT_FALSE(matcher.value().Matches(Doc(R"({"a": 1})")));
}

TEST(JsonSchemaTest, UnknownKeywordFails) {
  Status status = SchemaError(R"({"foo": 1})");
  EXPECT_EQ(status.code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(status.reason(), "Unknown $jsonSchema keyword: foo");
}

TEST(JsonSchemaTest, MistypedKeywordsFail) {
  EXPECT_EQ(SchemaError(R"({"required": "a"})").code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(SchemaError(R"({"type": "integer"})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(SchemaError(R"({"type": "object", "bsonType": "object"})").code(),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(Matcher::Parse(Doc(R"({"$jsonSchema": 1})")).status().code(), ErrorCode::kTypeMismatch);
}

}  // namespace
}  // namespace quarry::query
