// Field update operators, paths, conflicts, _id immutability and replacements.
#include <gtest/gtest.h>

#include "update/update_test_util.h"

namespace quarry::query {
namespace {

using testing::RunUpdate;
using testing::UpdateErrorCode;
using testing::Updates;

TEST(UpdateTest, SetCreatesMissingField) {
  EXPECT_TRUE(
      Updates(R"({"$set": {"b": 2}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1, "b": 2})"));
}

TEST(UpdateTest, SetReplacesExistingFieldInPlace) {
  EXPECT_TRUE(Updates(R"({"$set": {"a": "x"}})", R"({"_id": 1, "a": 1, "b": 2})",
                      R"({"_id": 1, "a": "x", "b": 2})"));
}

TEST(UpdateTest, NewFieldsAppearInLexicographicPathOrder) {
  EXPECT_TRUE(Updates(R"({"$set": {"b": 1, "a": 1}, "$inc": {"c": 1}})", R"({"_id": 1})",
                      R"({"_id": 1, "a": 1, "b": 1, "c": 1})"));
}

TEST(UpdateTest, SetDottedPathCreatesEmbeddedDocuments) {
  EXPECT_TRUE(
      Updates(R"({"$set": {"a.b.c": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": {"b": {"c": 1}}})"));
  EXPECT_TRUE(Updates(R"({"$set": {"a.b": 1, "a.c": 2}})", R"({"_id": 1})",
                      R"({"_id": 1, "a": {"b": 1, "c": 2}})"));
}

TEST(UpdateTest, SetSameValueIsNotAModification) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {"a": 1}})", R"({"_id": 1, "a": 1})");
  ASSERT_TRUE(run.status.ok());
  EXPECT_FALSE(run.modified);
}

TEST(UpdateTest, SetDoubleOverEqualIntIsAModification) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {"a": 1.0}})", R"({"_id": 1, "a": 1})");
  ASSERT_TRUE(run.status.ok());
  EXPECT_TRUE(run.modified);
}

TEST(UpdateTest, SetInsideScalarFailsWithPathNotViable) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {"a.b": 1}})", R"({"_id": 1, "a": 5})");
  EXPECT_EQ(run.status.code(), ErrorCode::kPathNotViable);
  EXPECT_EQ(run.status.reason(), "Cannot create field 'b' in element {a: 5}");
}

TEST(UpdateTest, SetNamedFieldInsideArrayFailsWithPathNotViable) {
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.b": 1}})", R"({"_id": 1, "a": [1]})"),
            ErrorCode::kPathNotViable);
}

TEST(UpdateTest, SetArrayIndexPadsWithNulls) {
  EXPECT_TRUE(Updates(R"({"$set": {"a.3": 4}})", R"({"_id": 1, "a": [1]})",
                      R"({"_id": 1, "a": [1, null, null, 4]})"));
  EXPECT_TRUE(Updates(R"({"$set": {"a.0.b": 4}})", R"({"_id": 1, "a": [{"b": 1}]})",
                      R"({"_id": 1, "a": [{"b": 4}]})"));
}

TEST(UpdateTest, NumericComponentOnMissingFieldCreatesDocument) {
  EXPECT_TRUE(Updates(R"({"$set": {"a.0": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": {"0": 1}})"));
}

TEST(UpdateTest, UnsetRemovesFieldAndNullsArrayElements) {
  EXPECT_TRUE(Updates(R"({"$unset": {"a": ""}})", R"({"_id": 1, "a": 1, "b": 2})",
                      R"({"_id": 1, "b": 2})"));
  EXPECT_TRUE(Updates(R"({"$unset": {"a.1": 1}})", R"({"_id": 1, "a": [1, 2, 3]})",
                      R"({"_id": 1, "a": [1, null, 3]})"));
  testing::UpdateRun run = RunUpdate(R"({"$unset": {"x.y": 1}})", R"({"_id": 1, "x": 3})");
  ASSERT_TRUE(run.status.ok());
  EXPECT_FALSE(run.modified);
}

TEST(UpdateTest, IncOnMissingFieldCreatesIt) {
  EXPECT_TRUE(Updates(R"({"$inc": {"n": 5}})", R"({"_id": 1})", R"({"_id": 1, "n": 5})"));
}

TEST(UpdateTest, IncPromotesTypes) {
  EXPECT_TRUE(Updates(R"({"$inc": {"n": 1}})", R"({"_id": 1, "n": 2147483647})",
                      R"({"_id": 1, "n": {"$numberLong": "2147483648"}})"));
  EXPECT_TRUE(
      Updates(R"({"$inc": {"n": 0.5}})", R"({"_id": 1, "n": 1})", R"({"_id": 1, "n": 1.5})"));
}

TEST(UpdateTest, IncOnStringFailsWithTypeMismatch) {
  testing::UpdateRun run = RunUpdate(R"({"$inc": {"a": 1}})", R"({"_id": 1, "a": "x"})");
  EXPECT_EQ(run.status.code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(run.status.reason(),
            "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of "
            "non-numeric type string");
}

TEST(UpdateTest, IncWithNonNumericArgumentFailsAtParse) {
  EXPECT_EQ(UpdateErrorCode(R"({"$inc": {"a": "x"}})", R"({"_id": 1})"), ErrorCode::kTypeMismatch);
}

TEST(UpdateTest, IncOverflowingLongFails) {
  EXPECT_EQ(UpdateErrorCode(R"({"$inc": {"a": 1}})",
                            R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})"),
            ErrorCode::kBadValue);
}

TEST(UpdateTest, MulOnMissingFieldCreatesZeroOfArgumentType) {
  EXPECT_TRUE(Updates(R"({"$mul": {"a": 2.5}})", R"({"_id": 1})", R"({"_id": 1, "a": 0.0})"));
  EXPECT_TRUE(Updates(R"({"$mul": {"a": 3}})", R"({"_id": 1, "a": 4})", R"({"_id": 1, "a": 12})"));
}

TEST(UpdateTest, MinAndMaxReplaceOnlyWhenBetter) {
  EXPECT_TRUE(Updates(R"({"$min": {"a": 3}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 3})"));
  EXPECT_TRUE(Updates(R"({"$min": {"a": 9}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 5})"));
  EXPECT_TRUE(Updates(R"({"$max": {"a": 9}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 9})"));
  EXPECT_TRUE(Updates(R"({"$max": {"b": 1}})", R"({"_id": 1})", R"({"_id": 1, "b": 1})"));
}

TEST(UpdateTest, CurrentDateSetsDateOrTimestamp) {
  testing::UpdateRun run =
      RunUpdate(R"({"$currentDate": {"d": true, "t": {"%type": "timestamp"}}})", R"({"_id": 1})");
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_EQ(run.doc.Get("d").type(), bson::Type::kDate);
  EXPECT_EQ(run.doc.Get("t").type(), bson::Type::kTimestamp);
  EXPECT_EQ(UpdateErrorCode(R"({"$currentDate": {"d": {"%type": "x"}}})", R"({"_id": 1})"),
            ErrorCode::kBadValue);
}

TEST(UpdateTest, SetOnInsertAppliesOnlyToInserts) {
  EXPECT_TRUE(Updates(R"({"$setOnInsert": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1})"));
  testing::UpdateRun run =
      RunUpdate(R"({"$setOnInsert": {"a": 1}})", R"({"_id": 1})", {}, MatchDetails{}, true);
  ASSERT_TRUE(run.status.ok());
  EXPECT_TRUE(testing::SameDoc(run.doc, R"({"_id": 1, "a": 1})"));
}

TEST(UpdateTest, RenameMovesField) {
  EXPECT_TRUE(Updates(R"({"$rename": {"a": "z"}})", R"({"_id": 1, "a": 1, "b": 2})",
                      R"({"_id": 1, "b": 2, "z": 1})"));
  EXPECT_TRUE(Updates(R"({"$rename": {"a.b": "c"}})", R"({"_id": 1, "a": {"b": 1, "x": 2}})",
                      R"({"_id": 1, "a": {"x": 2}, "c": 1})"));
  EXPECT_TRUE(Updates(R"({"$rename": {"nope": "z"}})", R"({"_id": 1})", R"({"_id": 1})"));
}

TEST(UpdateTest, RenameOverwritesTargetInPlace) {
  EXPECT_TRUE(Updates(R"({"$rename": {"b": "a"}})", R"({"_id": 1, "a": 1, "b": 2})",
                      R"({"_id": 1, "a": 2})"));
}

TEST(UpdateTest, RenameErrors) {
  EXPECT_EQ(UpdateErrorCode(R"({"$rename": {"a": "a"}})", R"({"_id": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$rename": {"a": "a.b"}})", R"({"_id": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$rename": {"a": 1}})", R"({"_id": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(UpdateErrorCode(R"({"$rename": {"a.0": "b"}})", R"({"_id": 1, "a": [1]})"),
            ErrorCode::kBadValue);
}

TEST(UpdateTest, UnknownModifierFailsWithFailedToParse) {
  testing::UpdateRun run = RunUpdate(R"({"$foo": {"a": 1}})", R"({"_id": 1})");
  EXPECT_EQ(run.status.code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(run.status.reason(),
            "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update "
            "specified as an array");
}

TEST(UpdateTest, ModifierWithNonObjectArgumentFails) {
  EXPECT_EQ(UpdateErrorCode(R"({"$set": 1})", R"({"_id": 1})"), ErrorCode::kFailedToParse);
}

TEST(UpdateTest, ConflictingPathsFail) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {"a": 1}, "$inc": {"a": 1}})", R"({"_id": 1})");
  EXPECT_EQ(run.status.code(), ErrorCode::kConflictingUpdateOperators);
  EXPECT_EQ(run.status.reason(), "Updating the path 'a' would create a conflict at 'a'");
  run = RunUpdate(R"({"$set": {"a": 1, "a.b": 2}})", R"({"_id": 1})");
  EXPECT_EQ(run.status.code(), ErrorCode::kConflictingUpdateOperators);
  EXPECT_EQ(run.status.reason(), "Updating the path 'a.b' would create a conflict at 'a'");
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a.b": 1}, "$unset": {"a": 1}})", R"({"_id": 1})"),
            ErrorCode::kConflictingUpdateOperators);
}

TEST(UpdateTest, EmptyPathComponentsFail) {
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"": 1}})", R"({"_id": 1})"), ErrorCode::kEmptyFieldName);
  EXPECT_EQ(UpdateErrorCode(R"({"$set": {"a..b": 1}})", R"({"_id": 1})"),
            ErrorCode::kEmptyFieldName);
}

TEST(UpdateTest, EmptySetIsANoOp) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {}})", R"({"_id": 1, "a": 1})");
  ASSERT_TRUE(run.status.ok());
  EXPECT_FALSE(run.modified);
}

TEST(UpdateTest, SetOnIdFailsWithImmutableField) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {"_id": 2}})", R"({"_id": 1})");
  EXPECT_EQ(run.status.code(), ErrorCode::kImmutableField);
  EXPECT_EQ(run.status.reason(),
            "Performing an update on the path '_id' would modify the immutable field '_id'");
  EXPECT_EQ(UpdateErrorCode(R"({"$unset": {"_id": 1}})", R"({"_id": 1})"),
            ErrorCode::kImmutableField);
}

TEST(UpdateTest, SetIdToSameValueIsAllowed) {
  testing::UpdateRun run = RunUpdate(R"({"$set": {"_id": 1, "a": 2}})", R"({"_id": 1})");
  ASSERT_TRUE(run.status.ok());
  EXPECT_TRUE(testing::SameDoc(run.doc, R"({"_id": 1, "a": 2})"));
}

TEST(UpdateTest, ReplacementKeepsIdFirst) {
  EXPECT_TRUE(Updates(R"({"b": 2})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "b": 2})"));
  EXPECT_TRUE(Updates(R"({})", R"({"_id": 1, "a": 1})", R"({"_id": 1})"));
  EXPECT_TRUE(Updates(R"({"b": 2, "_id": 1})", R"({"_id": 1, "a": 1})", R"({"b": 2, "_id": 1})"));
}

TEST(UpdateTest, ReplacementChangingIdFailsWithImmutableField) {
  EXPECT_EQ(UpdateErrorCode(R"({"_id": 2, "b": 2})", R"({"_id": 1})"), ErrorCode::kImmutableField);
}

TEST(UpdateTest, ReplacementWithDollarFieldFails) {
  EXPECT_EQ(UpdateErrorCode(R"({"a": 1, "$set": {"b": 1}})", R"({"_id": 1})"),
            ErrorCode::kDollarPrefixedFieldName);
}

TEST(UpdateTest, ReplacementMayHoldDottedAndDollarNamesInside) {
  EXPECT_TRUE(Updates(R"({"_id": 1, "a": {"$b": 1}, "c.d": 2})", R"({"_id": 1})",
                      R"({"_id": 1, "a": {"$b": 1}, "c.d": 2})"));
}

TEST(UpdateTest, TooLargeResultFailsWithBSONObjectTooLarge) {
  std::string big(9 * 1024 * 1024, 'x');
  bson::DocumentBuilder doc;
  doc.AppendInt32("_id", 1);
  doc.AppendString("a", big);
  bson::Document original = std::move(doc).Finish();
  bson::DocumentBuilder upd;
  upd.OpenDocument("$set");
  upd.AppendString("b", big);
  upd.Close();
  bson::Document update = std::move(upd).Finish();
  StatusWith<UpdateSpec> spec = UpdateSpec::Parse(update.view(), UpdateOptions{});
  ASSERT_TRUE(spec.ok());
  StatusWith<UpdateResult> result = spec.value().Apply(original, MatchDetails{}, false);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kBSONObjectTooLarge);
}

}  // namespace
}  // namespace quarry::query
