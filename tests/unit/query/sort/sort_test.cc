// SortSpec: parsing and MongoDB's order of documents.
#include "query/sort/sort.h"

#include <gtest/gtest.h>

#include "query_test_util.h"

namespace quarry::query {
namespace {

using testing::Doc;

SortSpec Spec(std::string_view json) {
  StatusWith<SortSpec> spec = SortSpec::Parse(Doc(json));
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? spec.value() : SortSpec();
}

// Sorts the documents of `docs_json` (a JSON array under "d") and returns their "_id"s.
std::vector<int> SortedIds(std::string_view spec_json, std::string_view docs_json) {
  bson::Document holder = Doc(docs_json);
  std::vector<bson::DocumentView> docs;
  for (const bson::Element& element : holder.Get("d").Document()) {
    docs.push_back(element.value.Document());
  }
  StableSortDocuments(Spec(spec_json), &docs);
  std::vector<int> ids;
  for (bson::DocumentView doc : docs) ids.push_back(static_cast<int>(doc.Get("_id").AsInt64()));
  return ids;
}

TEST(SortTest, AscendingAndDescendingByNumber) {
  const char* docs = R"({"d": [{"_id": 1, "a": 3}, {"_id": 2, "a": 1}, {"_id": 3, "a": 2}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(SortedIds(R"({"a": -1})", docs), (std::vector<int>{1, 3, 2}));
}

TEST(SortTest, NumbersOfDifferentTypesSortByValue) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": 2.5}, {"_id": 2, "a": {"$numberLong": "2"}}, {"_id": 3, "a": 3}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{2, 1, 3}));
}

TEST(SortTest, CompoundKeysBreakTiesInOrder) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 1, "b": 2}, {"_id": 3, "a": 0, "b": 5}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1, "b": -1})", docs), (std::vector<int>{3, 2, 1}));
}

TEST(SortTest, MissingFieldsSortAsNull) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": 1}, {"_id": 2}, {"_id": 3, "a": null}, {"_id": 4, "a": "x"}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{2, 3, 1, 4}));
}

TEST(SortTest, MixedTypesFollowCanonicalOrder) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": true}, {"_id": 2, "a": "s"}, {"_id": 3, "a": {"x": 1}}, )"
      R"({"_id": 4, "a": 5}, {"_id": 5, "a": {"$oid": "5f0000000000000000000001"}}, )"
      R"({"_id": 6, "a": {"$minKey": 1}}, {"_id": 7, "a": {"$date": "2020-01-01T00:00:00Z"}}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{6, 4, 2, 3, 5, 1, 7}));
}

TEST(SortTest, ArrayAscendingUsesMinElement) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": [5, 0]}, {"_id": 2, "a": 3}, {"_id": 3, "a": [4]}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{1, 2, 3}));
}

TEST(SortTest, ArrayDescendingUsesMaxElement) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": [5, 0]}, {"_id": 2, "a": 6}, {"_id": 3, "a": [4]}]})";
  EXPECT_EQ(SortedIds(R"({"a": -1})", docs), (std::vector<int>{2, 1, 3}));
}

TEST(SortTest, EmptyArraySortsBeforeNull) {
  const char* docs = R"({"d": [{"_id": 1, "a": null}, {"_id": 2, "a": []}, {"_id": 3, "a": 1}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{2, 1, 3}));
}

TEST(SortTest, DottedPathThroughArrayOfDocuments) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": [{"b": 9}, {"b": 2}]}, {"_id": 2, "a": {"b": 5}}, {"_id": 3, "a": [{"b": 7}]}]})";
  EXPECT_EQ(SortedIds(R"({"a.b": 1})", docs), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(SortedIds(R"({"a.b": -1})", docs), (std::vector<int>{1, 3, 2}));
}

TEST(SortTest, TiesKeepInputOrder) {
  const char* docs =
      R"({"d": [{"_id": 1, "a": 1}, {"_id": 2, "a": 0}, {"_id": 3, "a": 1}, {"_id": 4, "a": 0}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{2, 4, 1, 3}));
  EXPECT_EQ(SortedIds(R"({"a": -1})", docs), (std::vector<int>{1, 3, 2, 4}));
}

TEST(SortTest, StringsSortByBytes) {
  const char* docs = R"({"d": [{"_id": 1, "a": "b"}, {"_id": 2, "a": "B"}, {"_id": 3, "a": "a"}]})";
  EXPECT_EQ(SortedIds(R"({"a": 1})", docs), (std::vector<int>{2, 3, 1}));
}

TEST(SortTest, AcceptsAnyNumericOneOrMinusOne) {
  EXPECT_TRUE(SortSpec::Parse(Doc(R"({"a": 1.0, "b": {"$numberLong": "-1"}})")).ok());
}

TEST(SortTest, RejectsOtherOrderings) {
  for (const char* bad : {R"({"a": 2})", R"({"a": 0})", R"({"a": "asc"})", R"({"a": true})"}) {
    Status status = SortSpec::Parse(Doc(bad)).status();
    EXPECT_EQ(status.code(), ErrorCode::kBadValue) << bad;
    EXPECT_EQ(status.reason(),
              "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
  }
}

TEST(SortTest, TextScoreSortsHighestFirstFromTheMetadata) {
  SortSpec spec = Spec(R"({"s": {"$meta": "textScore"}, "a": 1})");
  EXPECT_TRUE(spec.sorts_by_text_score());
  bson::Document doc = Doc(R"({"a": 1})");
  bson::Document high = Doc(R"({"textScore": 2.5})");
  bson::Document low = Doc(R"({"textScore": 0.5})");
  EXPECT_LT(spec.CompareKeys(spec.MakeKey(doc, high), spec.MakeKey(doc, low)), 0);
  EXPECT_FALSE(Spec(R"({"a": 1})").sorts_by_text_score());
}

TEST(SortTest, OtherMetaSortsFailAsInMongod) {
  EXPECT_EQ(SortSpec::Parse(Doc(R"({"s": {"$meta": "bogus"}})")).status().code(),
            static_cast<ErrorCode>(31138));
  EXPECT_EQ(SortSpec::Parse(Doc(R"({"s": {"$meta": "textScore", "x": 1}})")).status().code(),
            ErrorCode::kFailedToParse);
  EXPECT_EQ(SortSpec::Parse(Doc(R"({"s": {"$foo": 1}})")).status().code(),
            static_cast<ErrorCode>(17312));
  EXPECT_EQ(SortSpec::Parse(Doc(R"({"s": {"$meta": "searchScore"}})")).status().code(),
            ErrorCode::kBadValue);
}

TEST(SortTest, NaturalOrderIsRecognised) {
  SortSpec forward = Spec(R"({"$natural": 1})");
  EXPECT_EQ(forward.natural(), 1);
  EXPECT_FALSE(forward.needs_sort());
  EXPECT_FALSE(forward.empty());
  EXPECT_EQ(Spec(R"({"$natural": -1})").natural(), -1);
}

TEST(SortTest, EmptySpecSortsNothing) {
  SortSpec spec = Spec("{}");
  EXPECT_TRUE(spec.empty());
  EXPECT_FALSE(spec.needs_sort());
}

TEST(SortTest, CompareOrdersTwoDocuments) {
  SortSpec spec = Spec(R"({"a": -1})");
  EXPECT_LT(spec.Compare(Doc(R"({"a": 2})"), Doc(R"({"a": 1})")), 0);
  EXPECT_EQ(spec.Compare(Doc(R"({"a": 1})"), Doc(R"({"a": 1.0})")), 0);
}

}  // namespace
}  // namespace quarry::query
