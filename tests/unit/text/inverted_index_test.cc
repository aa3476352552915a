#include "text/inverted_index.h"

#include <gtest/gtest.h>

#include <cmath>

#include "bson/json.h"

namespace quarry::text {
namespace {

FullTextMapping Dynamic() {
  FullTextMapping mapping;
  mapping.root.dynamic = true;
  return mapping;
}

void Put(InvertedIndex& index, const FullTextMapping& mapping, std::uint32_t label,
         std::string_view json) {
  bson::Document document = bson::FromJson(json).value();
  index.Set(label, mapping, document.view());
}

TEST(InvertedIndexTest, HoldsEachTermsPositionsAndEachValuesLength) {
  const FullTextMapping mapping = Dynamic();
  InvertedIndex index;
  Put(index, mapping, 7, R"({"t": "a b a", "n": 5, "sub": {"s": "x"}, "arr": ["p q", "r"]})");
  const InvertedIndex::Field* t = index.FieldAt("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(*t->terms.at("a").Find(7), (InvertedIndex::Positions{0, 2}));
  EXPECT_EQ(t->LengthOf(7), 3u);
  EXPECT_EQ(index.FieldAt("n"), nullptr);
  ASSERT_NE(index.FieldAt("sub.s"), nullptr);
  // Array values are one field, their positions apart so that no phrase spans two.
  const InvertedIndex::Field* arr = index.FieldAt("arr");
  EXPECT_EQ(arr->LengthOf(7), 3u);
  EXPECT_GT((*arr->terms.at("r").Find(7))[0], (*arr->terms.at("q").Find(7))[0] + 1);
  EXPECT_EQ(index.Paths(), (std::vector<std::string_view>{"arr", "sub.s", "t"}));
}

TEST(InvertedIndexTest, SettingAgainReplacesAndRemovingForgets) {
  const FullTextMapping mapping = Dynamic();
  InvertedIndex index;
  Put(index, mapping, 1, R"({"t": "red fox"})");
  Put(index, mapping, 2, R"({"t": "red"})");
  Put(index, mapping, 1, R"({"t": "blue"})");
  const InvertedIndex::Field* t = index.FieldAt("t");
  EXPECT_FALSE(t->terms.contains("fox"));
  EXPECT_EQ(t->terms.at("red").size(), 1u);
  EXPECT_EQ(t->total_length, 2u);
  index.Remove(2);
  EXPECT_FALSE(t->terms.contains("red"));
  EXPECT_EQ(t->documents, 1u);
  EXPECT_EQ(t->LengthOf(2), 0u);
  index.Remove(2);  // twice is harmless
  EXPECT_EQ(t->total_length, 1u);
}

TEST(InvertedIndexTest, ScoresByLuceneBm25) {
  const FullTextMapping mapping = Dynamic();
  InvertedIndex index;
  Put(index, mapping, 0, R"({"t": "apple apple pie"})");
  Put(index, mapping, 1, R"({"t": "pie"})");
  Put(index, mapping, 2, R"({"t": "cherry tart with cream"})");
  const InvertedIndex::Field* t = index.FieldAt("t");
  // N = 3 documents, "apple" in 1 of them; average length (3 + 1 + 4) / 3.
  const double idf = std::log(1 + (3 - 1 + 0.5) / (1 + 0.5));
  EXPECT_DOUBLE_EQ(t->Idf(1), idf);
  const double norm = 1.2 * (1 - 0.75 + 0.75 * 3 / (8.0 / 3));
  EXPECT_DOUBLE_EQ(t->Score(0, 2, idf), idf * 2 / (2 + norm));
}

}  // namespace
}  // namespace quarry::text
