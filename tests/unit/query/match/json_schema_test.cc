// $jsonSchema filters: the keywords collection validators use most.
#include <gtest/gtest.h>

#include <string>

#include "bson/builder.h"
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

TEST(JsonSchemaTest, UnsupportedKeywordsFail) {
  for (const char* keyword : {"%ref", "%schema", "default", "definitions", "format", "id"}) {
    std::string name = keyword;
    if (name[0] == '%') name[0] = '$';
    Status status = SchemaError(std::string("{\"") + keyword + "\": {}}");
    EXPECT_EQ(status.code(), ErrorCode::kFailedToParse) << keyword;
    EXPECT_EQ(status.reason(), "$jsonSchema keyword '" + name + "' is not currently supported");
  }
}

// Each keyword's argument checks: code and message as mongod words them.
struct KeywordError {
  const char* schema;
  ErrorCode code;
  const char* reason;
};

TEST(JsonSchemaTest, KeywordArgumentsAreChecked) {
  const ErrorCode kMismatch = ErrorCode::kTypeMismatch;
  const ErrorCode kBadValue = ErrorCode::kBadValue;
  const ErrorCode kFailed = ErrorCode::kFailedToParse;
  const KeywordError kCases[] = {
      {R"({"type": 1})", kMismatch, "$jsonSchema keyword 'type' must be a string or an array"},
      {R"({"type": [1]})", kMismatch, "$jsonSchema keyword 'type' must be an array of strings"},
      {R"({"type": "integer"})", kBadValue,
       "$jsonSchema type 'integer' is not currently supported."},
      {R"({"type": "int"})", kBadValue, "Unknown type name alias: int"},
      {R"({"bsonType": "foo"})", kBadValue, "Unknown type name alias: foo"},
      {R"({"bsonType": {}})", kMismatch,
       "$jsonSchema keyword 'bsonType' must be a string or an array"},
      {R"({"properties": 1})", kMismatch, "$jsonSchema keyword 'properties' must be an object"},
      {R"({"properties": {"a": 1}})", kMismatch,
       "$jsonSchema keyword 'properties' must be an object of objects"},
      {R"({"required": "a"})", kMismatch, "$jsonSchema keyword 'required' must be an array"},
      {R"({"required": [1]})", kMismatch,
       "$jsonSchema keyword 'required' must be an array of strings"},
      {R"({"required": []})", kBadValue, "$jsonSchema keyword 'required' cannot be an empty array"},
      {R"({"additionalProperties": 1})", kMismatch,
       "$jsonSchema keyword 'additionalProperties' must be an object or a boolean"},
      {R"({"additionalItems": "x"})", kMismatch,
       "$jsonSchema keyword 'additionalItems' must be an object or a boolean"},
      {R"({"patternProperties": []})", kMismatch,
       "$jsonSchema keyword 'patternProperties' must be an object"},
      {R"({"patternProperties": {"a": true}})", kMismatch,
       "$jsonSchema keyword 'patternProperties' must be an object of objects"},
      {R"({"minProperties": "1"})", kMismatch,
       "$jsonSchema keyword 'minProperties' must be a number"},
      {R"({"maxProperties": 1.5})", kFailed,
       "$jsonSchema keyword 'maxProperties' must be a representable integer"},
      {R"({"minLength": -1})", kFailed,
       "$jsonSchema keyword 'minLength' must be a non-negative integer"},
      {R"({"maxLength": null})", kMismatch, "$jsonSchema keyword 'maxLength' must be a number"},
      {R"({"minItems": true})", kMismatch, "$jsonSchema keyword 'minItems' must be a number"},
      {R"({"maxItems": -2})", kFailed,
       "$jsonSchema keyword 'maxItems' must be a non-negative integer"},
      {R"({"dependencies": 1})", kMismatch, "$jsonSchema keyword 'dependencies' must be an object"},
      {R"({"dependencies": {"a": 1}})", kMismatch,
       "$jsonSchema keyword 'dependencies' must be an object of objects or arrays of strings"},
      {R"({"dependencies": {"a": [1]}})", kMismatch,
       "$jsonSchema keyword 'dependencies' must be an object of objects or arrays of strings"},
      {R"({"enum": 1})", kMismatch, "$jsonSchema keyword 'enum' must be an array"},
      {R"({"enum": []})", kFailed, "$jsonSchema keyword 'enum' cannot be an empty array"},
      {R"({"minimum": "0"})", kMismatch, "$jsonSchema keyword 'minimum' must be a number"},
      {R"({"maximum": {}})", kMismatch, "$jsonSchema keyword 'maximum' must be a number"},
      {R"({"exclusiveMinimum": 1, "minimum": 0})", kMismatch,
       "$jsonSchema keyword 'exclusiveMinimum' must be a boolean"},
      {R"({"exclusiveMaximum": true})", kFailed,
       "$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present"},
      {R"({"multipleOf": "2"})", kMismatch, "$jsonSchema keyword 'multipleOf' must be a number"},
      {R"({"multipleOf": 0})", kFailed,
       "$jsonSchema keyword 'multipleOf' must have a positive value"},
      {R"({"pattern": 1})", kMismatch, "$jsonSchema keyword 'pattern' must be a string"},
      {R"({"items": 1})", kMismatch, "$jsonSchema keyword 'items' must be an array or an object"},
      {R"({"items": [1]})", kMismatch, "$jsonSchema keyword 'items' must be an array of objects"},
      {R"({"uniqueItems": 1})", kMismatch, "$jsonSchema keyword 'uniqueItems' must be a boolean"},
      {R"({"allOf": {}})", kMismatch, "$jsonSchema keyword 'allOf' must be an array"},
      {R"({"anyOf": [1]})", kMismatch, "$jsonSchema keyword 'anyOf' must be an array of objects"},
      {R"({"oneOf": []})", kBadValue, "$jsonSchema keyword 'oneOf' must be a nonempty array"},
      {R"({"not": []})", kMismatch, "$jsonSchema keyword 'not' must be an object"},
      {R"({"title": 1})", kMismatch, "$jsonSchema keyword 'title' must be a string"},
      {R"({"description": {}})", kMismatch, "$jsonSchema keyword 'description' must be a string"},
      {R"({"properties": {"a": {"minimum": "x"}}})", kMismatch,
       "$jsonSchema keyword 'minimum' must be a number"},
  };
  for (const KeywordError& c : kCases) {
    Status status = SchemaError(c.schema);
    EXPECT_EQ(status.code(), c.code) << c.schema;
    EXPECT_EQ(status.reason(), c.reason) << c.schema;
  }
}

TEST(JsonSchemaTest, InvalidPatternsFailAsRegexes) {
  EXPECT_EQ(SchemaError(R"({"pattern": "("})").code(), static_cast<ErrorCode>(51091));
  EXPECT_EQ(SchemaError(R"({"patternProperties": {"(": {}}})").code(),
            static_cast<ErrorCode>(51091));
}

// {$jsonSchema: {not: {not: ... {}}}} with `depth` nots, built directly: JSON parsers stop
// nesting sooner than the matcher does.
Status NestedNotsError(int depth) {
  bson::DocumentBuilder filter;
  filter.OpenDocument("$jsonSchema");
  for (int level = 0; level < depth; ++level) filter.OpenDocument("not");
  for (int level = 0; level <= depth; ++level) filter.Close();
  const bson::Document doc = std::move(filter).Finish();
  return Matcher::Parse(doc).status();
}

TEST(JsonSchemaTest, NestingPastOneHundredLevelsFails) {
  EXPECT_TRUE(NestedNotsError(100).ok());
  Status status = NestedNotsError(101);
  EXPECT_EQ(status.code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(status.reason(), "$jsonSchema is nested too deeply");
}

TEST(JsonSchemaTest, AnnotationsAreAcceptedAndIgnored) {
  EXPECT_TRUE(Valid(R"({"title": "t", "description": "d"})", R"({"a": 1})"));
}

TEST(JsonSchemaTest, PropertyCountsAndPatternProperties) {
  const char* schema = R"({"minProperties": 1, "maxProperties": 2,)"
                       R"( "patternProperties": {"^n": {"bsonType": "int"}},)"
                       R"( "additionalProperties": {"bsonType": "string"}})";
  EXPECT_TRUE(Valid(schema, R"({"n1": 1, "s": "x"})"));
  EXPECT_FALSE(Valid(schema, R"({})"));
  EXPECT_FALSE(Valid(schema, R"({"n1": 1, "n2": 2, "n3": 3})"));
  EXPECT_FALSE(Valid(schema, R"({"n1": "one"})"));
  EXPECT_FALSE(Valid(schema, R"({"s": 1})"));
}

TEST(JsonSchemaTest, Dependencies) {
  const char* schema = R"({"dependencies": {"card": ["billing"], "vip": {"required": ["level"]}}})";
  EXPECT_TRUE(Valid(schema, R"({"card": 1, "billing": 2})"));
  EXPECT_FALSE(Valid(schema, R"({"card": 1})"));
  EXPECT_TRUE(Valid(schema, R"({"vip": true, "level": 3})"));
  EXPECT_FALSE(Valid(schema, R"({"vip": true})"));
  EXPECT_TRUE(Valid(schema, R"({"other": 1})"));
}

TEST(JsonSchemaTest, ItemListAndAdditionalItems) {
  const char* closed =
      R"({"properties": {"a": {"items": [{"bsonType": "int"}, {"bsonType": "string"}],)"
      R"( "additionalItems": false}}})";
  EXPECT_TRUE(Valid(closed, R"({"a": [1, "x"]})"));
  EXPECT_FALSE(Valid(closed, R"({"a": ["x", 1]})"));
  EXPECT_FALSE(Valid(closed, R"({"a": [1, "x", 2]})"));
  const char* typed = R"({"properties": {"a": {"items": [{"bsonType": "int"}],)"
                      R"( "additionalItems": {"bsonType": "bool"}}}})";
  EXPECT_TRUE(Valid(typed, R"({"a": [1, true, false]})"));
  EXPECT_FALSE(Valid(typed, R"({"a": [1, 2]})"));
}

TEST(JsonSchemaTest, MultipleOfExclusiveMinimumAndAllOf) {
  const char* schema =
      R"({"properties": {"n": {"multipleOf": 2.5, "minimum": 0, "exclusiveMinimum": true,)"
      R"( "allOf": [{"maximum": 10}, {"not": {"enum": [5]}}]}}})";
  EXPECT_TRUE(Valid(schema, R"({"n": 2.5})"));
  EXPECT_TRUE(Valid(schema, R"({"n": 10})"));
  EXPECT_FALSE(Valid(schema, R"({"n": 0})"));
  EXPECT_FALSE(Valid(schema, R"({"n": 3})"));
  EXPECT_FALSE(Valid(schema, R"({"n": 12.5})"));
  EXPECT_FALSE(Valid(schema, R"({"n": 5})"));
}

}  // namespace
}  // namespace quarry::query
