// What an index reads from a document: only a well-formed vector is indexed, and the filter
// values keep the fields a dotted filter path goes through.
#include "vector/document_vectors.h"

#include <gtest/gtest.h>

#include "bson/builder.h"
#include "bson/json.h"

namespace quarry::vector {
namespace {

bson::Document Json(std::string_view json) { return bson::FromJson(json).value(); }

TEST(DocumentVectorsTest, ReadsNumbersOfEveryKindAtADottedPath) {
  bson::Document doc = Json(R"({"a": {"emb": [1, 2.5, {"$numberLong": "3"}]}})");
  auto vector = VectorAt(doc.view(), "a.emb");
  ASSERT_TRUE(vector.has_value());
  EXPECT_EQ(*vector, (std::vector<float>{1.0f, 2.5f, 3.0f}));
}

TEST(DocumentVectorsTest, ReadsEveryElementOfALongArrayInOrder) {
  bson::ArrayBuilder array;
  std::vector<float> expected;
  for (int i = 0; i < 1500; ++i) {
    if (i % 3 == 0) {
      array.AppendInt32(i);
      expected.push_back(static_cast<float>(i));
    } else if (i % 3 == 1) {
      array.AppendInt64(-i);
      expected.push_back(static_cast<float>(-i));
    } else {
      array.AppendDouble(i + 0.25);
      expected.push_back(static_cast<float>(i + 0.25));
    }
  }
  const bson::Document values = std::move(array).Finish();
  bson::DocumentBuilder doc;
  doc.AppendArray("emb", values.view());
  EXPECT_EQ(VectorAt(std::move(doc).Finish().view(), "emb"), expected);
}

TEST(DocumentVectorsTest, AnythingButAnArrayOfNumbersIsNotAVector) {
  for (const char* json :
       {R"({})", R"({"emb": "text"})", R"({"emb": []})", R"({"emb": [1, "2"]})",
        R"({"emb": [1, null]})", R"({"emb": [[1, 2]]})", R"({"emb": {"0": 1}})",
        R"({"emb": [1, {"$numberDecimal": "2"}]})", R"({"emb": [1, {"$numberDouble": "NaN"}]})",
        R"({"emb": [{"$numberDouble": "-Infinity"}]})"}) {
    EXPECT_FALSE(VectorAt(Json(json).view(), "emb").has_value()) << json;
  }
  EXPECT_FALSE(VectorAt(Json(R"({"a": [{"emb": [1]}]})").view(), "a.emb").has_value());
}

TEST(DocumentVectorsTest, FilterValuesKeepTheFieldsTheFilterPathsStartWith) {
  bson::Document doc =
      Json(R"({"_id": 1, "emb": [1, 2], "genre": "x", "meta": {"year": 2001, "n": 2},
               "metadata": 5})");
  bson::Document kept = FilterFieldsOf(doc.view(), {"genre", "meta.year"});
  EXPECT_EQ(kept.view().ToJson(),
            Json(R"({"genre": "x", "meta": {"year": 2001, "n": 2}})").view().ToJson());
}

}  // namespace
}  // namespace quarry::vector

namespace quarry::vector {
namespace {

bson::Document WithBinary(std::string bytes) {
  bson::DocumentBuilder b;
  b.AppendBinary("v", 9, bytes);
  return std::move(b).Finish();
}

TEST(DocumentVectorsTest, BinaryVectorsOfFloat32AndInt8AreRead) {
  std::string float32("\x27\x00", 2);
  const float values[] = {1.5f, -2.0f};
  float32.append(reinterpret_cast<const char*>(values), sizeof values);  // little-endian host
  EXPECT_EQ(VectorAt(WithBinary(float32).view(), "v"), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(VectorAt(WithBinary(std::string("\x03\x00\x05\xfb", 4)).view(), "v"),
            (std::vector<float>{5.0f, -5.0f}));
  EXPECT_FALSE(VectorAt(WithBinary(std::string("\x27\x00\x01", 3)).view(), "v").has_value());
  EXPECT_FALSE(VectorAt(WithBinary(std::string("\x27", 1)).view(), "v").has_value());
}

}  // namespace
}  // namespace quarry::vector

namespace quarry::vector {
namespace {

TEST(DocumentVectorsTest, PackedBitsAreReadMostSignificantBitFirstWithoutTheirPadding) {
  bson::Document bits = WithBinary(std::string("\x10\x00\xa5\x0f", 4));
  EXPECT_EQ(FormOf(bits.view().Get("v")), VectorForm::kPackedBits);
  EXPECT_EQ(VectorAt(bits.view(), "v"),
            (std::vector<float>{1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1}));
  // Three padding bits: the last byte's three low bits are no elements.
  EXPECT_EQ(VectorAt(WithBinary(std::string("\x10\x03\xff\xe0", 4)).view(), "v"),
            (std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}));
}

TEST(DocumentVectorsTest, MalformedPackedBitsAreNoVector) {
  EXPECT_FALSE(VectorAt(WithBinary(std::string("\x10\x08\xff", 3)).view(), "v").has_value());
  EXPECT_FALSE(VectorAt(WithBinary(std::string("\x10\x01", 2)).view(), "v").has_value());
  EXPECT_FALSE(VectorAt(WithBinary(std::string("\x10\x00", 2)).view(), "v").has_value());
}

TEST(DocumentVectorsTest, TheElementsOfANestedRootAreItsSubDocuments) {
  bson::Document doc = Json(R"({"book": {"parts": [{"e": [1]}, 7, {"e": [2]}, [{"e": [3]}]]},
                                 "one": {"part": {"e": [4]}}})");
  std::vector<bson::DocumentView> parts = ElementsAt(doc.view(), "book.parts");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(VectorAt(parts[0], "e"), (std::vector<float>{1}));
  EXPECT_EQ(VectorAt(parts[1], "e"), (std::vector<float>{2}));
  std::vector<bson::DocumentView> one = ElementsAt(doc.view(), "one.part");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(VectorAt(one[0], "e"), (std::vector<float>{4}));
  EXPECT_TRUE(ElementsAt(doc.view(), "missing").empty());
  EXPECT_TRUE(ElementsAt(doc.view(), "book.parts.e").empty());
}

TEST(DocumentVectorsTest, ElementFilterValuesAreNamedByTheirFullPaths) {
  bson::Document element = Json(R"({"page": 3, "emb": [1], "tag": "x"})");
  bson::Document kept = FilterFieldsOf(element.view(), {"page"});
  EXPECT_EQ(UnderRoot("book.parts", kept.view()).view().ToJson(),
            Json(R"({"book": {"parts": {"page": 3}}})").view().ToJson());
  EXPECT_EQ(UnderRoot("parts", kept.view()).view().ToJson(),
            Json(R"({"parts": {"page": 3}})").view().ToJson());
}

}  // namespace
}  // namespace quarry::vector
