#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "bson/builder.h"
#include "bson/compare.h"
#include "bson/json.h"
#include "bson/path.h"
#include "bson/validate.h"

namespace quarry::bson {
namespace {

Document Json(std::string_view json) {
  StatusWith<Document> doc = FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  return doc.ok() ? doc.value() : Document();
}

int CompareJsonValues(std::string_view a, std::string_view b) {
  Document da = Json(std::string("{\"v\":") + std::string(a) + "}");
  Document db = Json(std::string("{\"v\":") + std::string(b) + "}");
  return CompareValues(da.Get("v"), db.Get("v"));
}

TEST(BuilderTest, BuildsNestedDocumentsAndArrays) {
  DocumentBuilder b;
  b.AppendInt32("n", 1).OpenDocument("sub").AppendString("s", "x").Close();
  b.OpenArray("arr").AppendInt64("0", 5).AppendBool("1", true).Close();
  Document d = std::move(b).Finish();
  ASSERT_TRUE(Validate(d.bytes().data(), d.size()).ok());
  EXPECT_EQ(d.Get("n").Int32(), 1);
  EXPECT_EQ(GetPath(d, "sub.s").String(), "x");
  EXPECT_EQ(GetPath(d, "arr.0").Int64(), 5);
  EXPECT_TRUE(GetPath(d, "arr.1").Bool());
  EXPECT_FALSE(GetPath(d, "arr.2").exists());
  EXPECT_FALSE(GetPath(d, "n.x").exists());
}

TEST(BuilderTest, NestsDeeperThanItsInlineLevelsAndClosesEachAtItsOwnLength) {
  // Twenty levels: the first few offsets are kept inline, the rest on the heap; each level
  // holds an element after its child, so a wrong offset corrupts a length Validate checks.
  constexpr int kLevels = 20;
  DocumentBuilder b;
  for (int level = 0; level < kLevels; ++level) {
    b.AppendInt32("depth", level).OpenDocument("d");
  }
  for (int level = kLevels - 1; level >= 0; --level) {
    b.Close().AppendString("after", std::to_string(level));
  }
  Document d = std::move(b).Finish();
  ASSERT_TRUE(Validate(d.bytes().data(), d.size()).ok());
  std::string path;
  for (int level = 0; level < kLevels; ++level) {
    EXPECT_EQ(GetPath(d, path + "depth").Int32(), level);
    EXPECT_EQ(GetPath(d, path + "after").String(), std::to_string(level)) << path;
    path += "d.";
  }
}

TEST(BuilderTest, ContinuesAFinishedDocumentAfterItsLastElement) {
  DocumentBuilder first;
  first.AppendInt32("a", 1);

  DocumentBuilder continued(std::move(first).Finish());
  continued.AppendString("b", "x");
  Document d = std::move(continued).Finish();
  DocumentBuilder from_empty_builder{Document()};
  from_empty_builder.AppendBool("c", true);
  Document from_empty = std::move(from_empty_builder).Finish();

  ASSERT_TRUE(Validate(d.bytes().data(), d.size()).ok());
  EXPECT_EQ(d.Get("a").Int32(), 1);
  EXPECT_EQ(d.Get("b").String(), "x");
  EXPECT_EQ(d.view().CountElements(), 2u);
  ASSERT_TRUE(Validate(from_empty.bytes().data(), from_empty.size()).ok());
  EXPECT_TRUE(from_empty.Get("c").Bool());
}

TEST(BuilderTest, ArrayBuilderNumbersKeysWithoutGaps) {
  ArrayBuilder a;
  a.AppendInt32(1).Append(ValueView()).AppendString("b");
  Document arr = std::move(a).Finish();
  EXPECT_EQ(arr.Get("1").String(), "b");
  EXPECT_EQ(arr.view().CountElements(), 2u);
}

TEST(BuilderTest, AppendNumberTakesAnIntWhileTheValueFitsOne) {
  DocumentBuilder b;
  b.AppendNumber("small", -7)
      .AppendNumber("top", 2147483647)
      .AppendNumber("above", 2147483648)
      .AppendNumber("below", -2147483649);
  Document d = std::move(b).Finish();
  EXPECT_EQ(d.view().Get("small").type(), Type::kInt32);
  EXPECT_EQ(d.view().Get("small").Int32(), -7);
  EXPECT_EQ(d.view().Get("top").type(), Type::kInt32);
  EXPECT_EQ(d.view().Get("above").type(), Type::kInt64);
  EXPECT_EQ(d.view().Get("above").Int64(), 2147483648);
  EXPECT_EQ(d.view().Get("below").type(), Type::kInt64);
}

TEST(DocumentViewTest, HasAnyOfFindsAnyOfTheKeysAndOnlyWholeKeys) {
  DocumentBuilder b;
  b.AppendInt32("find", 1).AppendNull("hint").AppendString("collation_x", "c");
  Document d = std::move(b).Finish();
  EXPECT_TRUE(d.view().HasAnyOf({"min", "hint"}));  // a null value is present
  EXPECT_TRUE(d.view().HasAnyOf({"find"}));
  EXPECT_FALSE(d.view().HasAnyOf({"collation", "max", "hin"}));
  EXPECT_FALSE(d.view().HasAnyOf({}));
  EXPECT_FALSE(DocumentView().HasAnyOf({"find"}));
}

TEST(JsonTest, RoundTripsRelaxedExtendedJson) {
  Document d = Json(R"({"a": 1, "b": "x", "c": {"$oid": "0123456789abcdef01234567"}})");
  EXPECT_EQ(d.Get("a").type(), Type::kInt32);
  EXPECT_EQ(d.Get("c").Oid().ToHex(), "0123456789abcdef01234567");
  EXPECT_NE(d.ToJson().find("\"b\" : \"x\""), std::string::npos);
  EXPECT_EQ(d.Get("a").ToJson(), "1");
}

TEST(CompareTest, NumbersCompareByValueAcrossTypes) {
  EXPECT_EQ(CompareJsonValues("1", "{\"$numberLong\": \"1\"}"), 0);
  EXPECT_EQ(CompareJsonValues("1", "1.0"), 0);
  EXPECT_LT(CompareJsonValues("1", "1.5"), 0);
  EXPECT_GT(CompareJsonValues("{\"$numberLong\": \"9007199254740993\"}", "9007199254740992.0"), 0);
  EXPECT_EQ(CompareJsonValues("{\"$numberDecimal\": \"2.5\"}", "2.5"), 0);
}

TEST(CompareTest, NanEqualsNanAndSortsBelowOtherNumbers) {
  EXPECT_EQ(CompareJsonValues("{\"$numberDouble\": \"NaN\"}", "{\"$numberDouble\": \"NaN\"}"), 0);
  EXPECT_LT(CompareJsonValues("{\"$numberDouble\": \"NaN\"}", "{\"$numberDouble\": \"-Infinity\"}"),
            0);
  EXPECT_LT(CompareJsonValues("{\"$numberDouble\": \"NaN\"}", "{\"$numberLong\": \"-5\"}"), 0);
}

TEST(CompareTest, TypesOrderCanonically) {
  const char* ordered[] = {R"({"$minKey": 1})",
                           "null",
                           "5",
                           R"("a")",
                           R"({"x": 1})",
                           "[1]",
                           R"({"$binary": {"base64": "AA==", "subType": "00"}})",
                           R"({"$oid": "0123456789abcdef01234567"})",
                           "false",
                           R"({"$date": {"$numberLong": "0"}})",
                           R"({"$timestamp": {"t": 1, "i": 1}})",
                           R"({"$regularExpression": {"pattern": "a", "options": ""}})",
                           R"({"$maxKey": 1})"};
  for (std::size_t i = 0; i + 1 < std::size(ordered); ++i) {
    EXPECT_LT(CompareJsonValues(ordered[i], ordered[i + 1]), 0)
        << ordered[i] << " vs " << ordered[i + 1];
    EXPECT_GT(CompareJsonValues(ordered[i + 1], ordered[i]), 0);
  }
}

TEST(CompareTest, DocumentsCompareFieldByField) {
  EXPECT_LT(CompareJsonValues(R"({"a": 1})", R"({"a": 2})"), 0);
  EXPECT_LT(CompareJsonValues(R"({"a": 1})", R"({"b": 1})"), 0);
  EXPECT_LT(CompareJsonValues(R"({"a": 1})", R"({"a": 1, "b": 0})"), 0);
  EXPECT_LT(CompareJsonValues(R"({"a": 5})", R"({"a": "x"})"), 0);  // type before value
  EXPECT_LT(CompareJsonValues("[1, 2]", "[1, 3]"), 0);
  EXPECT_LT(CompareJsonValues("[]", "[0]"), 0);
}

TEST(CompareTest, StringsCompareByBytes) {
  EXPECT_LT(CompareJsonValues(R"("B")", R"("a")"), 0);
  EXPECT_LT(CompareJsonValues(R"("a")", R"("ab")"), 0);
}

TEST(ValidateTest, AcceptsBuiltDocuments) {
  Document d =
      Json(R"({"a": [1, {"b": null}], "c": {"$regularExpression": {"pattern": "x", "options": "i"}},
                       "d": {"$binary": {"base64": "AAEC", "subType": "04"}}, "e": {"$numberDecimal": "1.5"}})");
  EXPECT_TRUE(Validate(d.bytes().data(), d.size()).ok());
}

TEST(ValidateTest, RejectsLengthThatDisagreesWithSize) {
  Document d = Json(R"({"a": 1})");
  std::string bytes = d.bytes();
  EXPECT_EQ(Validate(bytes.data(), bytes.size() - 1).code(), ErrorCode::kInvalidBSON);
  bytes.push_back('\0');
  EXPECT_EQ(Validate(bytes.data(), bytes.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateTest, RejectsUnknownTypesAndBadBooleans) {
  std::string bytes = Json(R"({"a": true})").bytes();
  bytes[bytes.size() - 2] = 7;  // boolean byte
  EXPECT_FALSE(Validate(bytes.data(), bytes.size()).ok());
  bytes = Json(R"({"a": true})").bytes();
  bytes[4] = 0x42;  // type byte
  EXPECT_FALSE(Validate(bytes.data(), bytes.size()).ok());
}

TEST(ValidateTest, RejectsDeepNestingWithoutRecursing) {
  // 100,000 levels of {"a": {...}} would overflow a recursive validator.
  const int depth = 100000;
  std::string bytes;
  std::vector<std::size_t> starts;
  for (int i = 0; i < depth; ++i) {
    starts.push_back(bytes.size());
    bytes.append(4, '\0');
    bytes.push_back(0x03);
    bytes.append("a", 2);
  }
  bytes.append(4, '\0');
  for (int i = 0; i < 2; ++i) bytes.push_back('\0');
  // innermost: {} then close each level
  std::string inner = "\x05\0\0\0\0";
  bytes.resize(bytes.size() - 6);
  bytes.append(inner, 0, 5);
  for (int i = depth - 1; i >= 0; --i) {
    bytes.push_back('\0');
    auto len = static_cast<std::int32_t>(bytes.size() - starts[i]);
    std::memcpy(bytes.data() + starts[i], &len, 4);
  }
  Status s = Validate(bytes.data(), bytes.size());
  EXPECT_EQ(s.code(), ErrorCode::kOverflow);
  EXPECT_NE(s.reason().find("nested object depth"), std::string_view::npos) << s.ToString();
}

// {"a": {"a": ... {}}} with `levels` levels, the outer document included.
std::string NestedDocument(int levels) {
  Document inner = Json("{}");
  for (int level = 1; level < levels; ++level) {
    DocumentBuilder b;
    b.AppendDocument("a", inner.view());
    inner = std::move(b).Finish();
  }
  return std::string(inner.bytes());
}

TEST(ValidateTest, AcceptsTwoHundredLevelsBelowTheTopAsMongodDoes) {
  const std::string ok = NestedDocument(kMaxNestingDepth + 1);
  EXPECT_TRUE(Validate(ok.data(), ok.size()).ok());
  const std::string deep = NestedDocument(kMaxNestingDepth + 2);
  EXPECT_EQ(Validate(deep.data(), deep.size()).code(), ErrorCode::kOverflow);
}

TEST(ValidateTest, NestingDepthCountsTheTopLevelAndStopsPastTheLimit) {
  EXPECT_EQ(NestingDepth(Json("{}").view().data(), 10), 1);
  EXPECT_EQ(NestingDepth(Json(R"({"a": [1, {"b": 2}], "c": {}})").view().data(), 10), 3);
  const std::string deep = NestedDocument(50);
  EXPECT_EQ(NestingDepth(deep.data(), 100), 50);
  EXPECT_EQ(NestingDepth(deep.data(), 10), 11);
}

TEST(ValidateTest, ReportsTheDeepestLevelAsNestingDepthCountsIt) {
  for (const std::string& json :
       {std::string("{}"), std::string(R"({"a": [1, {"b": 2}], "c": {}})"),
        std::string(R"({"x": [[[]]], "y": {"z": 1}})")}) {
    const Document doc = Json(json);
    int deepest = 0;
    ASSERT_TRUE(Validate(doc.bytes().data(), doc.bytes().size(), &deepest).ok()) << json;
    EXPECT_EQ(deepest, NestingDepth(doc.view().data(), 1000)) << json;
  }
  const std::string deep = NestedDocument(kMaxNestingDepth + 1);
  int deepest = 0;
  ASSERT_TRUE(Validate(deep.data(), deep.size(), &deepest).ok());
  EXPECT_EQ(deepest, kMaxNestingDepth + 1);
}

TEST(ValidateTest, ChecksEveryElementOfALongRunOfNumbers) {
  // A vector-like array: doubles, int32s and int64s, then other types after the run.
  Document d = Json(R"({"v": [1.5, 2, {"$numberLong": "3"}, 4.25, -5, "end", [6, 7.5], null]})");
  std::string bytes = d.bytes();
  ASSERT_TRUE(Validate(bytes.data(), bytes.size()).ok());
  // Every truncation of the outer length's document, and every single corrupted byte, is either
  // rejected or leaves bytes that iterate safely.
  for (std::size_t at = 4; at + 1 < bytes.size(); ++at) {
    for (int value : {0, 1, 0x10, 0x12, 0x7f, 0xff}) {
      std::string corrupt = bytes;
      corrupt[at] = static_cast<char>(value);
      if (!Validate(corrupt.data(), corrupt.size()).ok()) continue;
      std::size_t n = 0;
      for (const Element& e : DocumentView(corrupt.data())) n += e.key.size() + e.value.size();
      EXPECT_LE(n, corrupt.size());
    }
  }
  // A double whose bytes run past the array's end is no value.
  ArrayBuilder numbers;
  for (int i = 0; i < 400; ++i) numbers.AppendDouble(i + 0.5);
  DocumentBuilder outer;
  outer.AppendArray("v", std::move(numbers).Finish().view());
  std::string many = std::move(outer).Finish().bytes();
  ASSERT_TRUE(Validate(many.data(), many.size()).ok());
  const std::size_t array_start = 4 + 1 + 2;  // the outer length, the type byte, "v\0"
  std::int32_t array_length;
  std::memcpy(&array_length, many.data() + array_start, 4);
  --array_length;  // the array now ends inside its last double
  std::memcpy(many.data() + array_start, &array_length, 4);
  EXPECT_EQ(Validate(many.data(), many.size()).code(), ErrorCode::kInvalidBSON);
}

TEST(ValidateTest, RandomCorruptionsNeverCrashAndValidatedBytesIterateSafely) {
  Document d = Json(
      R"({"a": [1, {"b": "text"}], "c": {"x": 1.5, "y": {"$oid": "0123456789abcdef01234567"}}})");
  std::mt19937 rng(42);
  for (int round = 0; round < 20000; ++round) {
    std::string bytes = d.bytes();
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (Validate(bytes.data(), bytes.size()).ok()) {
      DocumentView view(bytes.data());
      std::size_t n = 0;
      for (const Element& e : view) n += e.key.size() + e.value.size();
      (void)view.ToJson();
      EXPECT_GE(n, 0u);
    }
  }
}

}  // namespace
}  // namespace quarry::bson
