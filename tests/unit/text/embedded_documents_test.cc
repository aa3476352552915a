#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "bson/json.h"
#include "text/inverted_index.h"
#include "text/search_operator.h"

namespace quarry::text {
namespace {

// items: embeddedDocuments (name a string, color a token, parts embedded again); title a string.
FullTextMapping OrdersMapping() {
  FullTextMapping mapping;
  mapping.root.fields["title"].is_string = true;
  FullTextField part = DocumentField();
  part.fields["name"].is_string = true;
  FullTextField item = DocumentField();
  item.fields["name"].is_string = true;
  item.fields["color"].value_kinds = kTokenValues;
  item.fields["parts"].embedded = std::make_shared<const FullTextField>(part);
  mapping.root.fields["items"].embedded = std::make_shared<const FullTextField>(item);
  mapping.LinkEmbedded();
  return mapping;
}

class EmbeddedDocumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Put(0, R"({"title": "basket", "items": [{"name": "apple", "color": "red"},
                                             {"name": "pear", "color": "green"}]})");
    Put(1, R"({"title": "apple crate", "items": [{"name": "apple", "color": "green"}]})");
    Put(2, R"({"items": {"name": "apple apple pie", "color": "gold",
                         "parts": [{"name": "crust"}, {"name": "apple"}]}})");
    Put(3, R"({"items": ["apple", {"name": "plum"}]})");
  }

  void Put(std::uint32_t label, std::string_view json) {
    bson::Document document = bson::FromJson(json).value();
    index_.Set(label, mapping_, document.view());
  }

  StatusWith<SearchOperator> Parse(std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    return ParseSearchOperator(first.key, first.value);
  }

  std::map<std::uint32_t, double> Run(std::string_view json) {
    StatusWith<SearchOperator> op = Parse(json);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    if (!op.ok()) return {};
    StatusWith<SearchScores> scores = EvaluateSearch(op.value(), index_, mapping_);
    EXPECT_TRUE(scores.ok()) << scores.status().ToString();
    if (!scores.ok()) return {};
    return {scores.value().begin(), scores.value().end()};
  }

  std::vector<std::uint32_t> Labels(std::string_view json) {
    std::vector<std::uint32_t> labels;
    for (const auto& [label, score] : Run(json)) labels.push_back(label);
    return labels;
  }

  // The BM25 of `term` in sub-document `child` of items, over the sub-documents' statistics.
  double ItemScore(std::uint32_t child, std::string_view term) {
    const InvertedIndex::Field* field = index_.EmbeddedAt("items")->index.FieldAt("items.name");
    const InvertedIndex::Postings& postings = field->terms.at(std::string(term));
    return field->Score(child, static_cast<double>(postings.Find(child)->size()),
                        field->Idf(postings.size()));
  }

  FullTextMapping mapping_ = OrdersMapping();
  InvertedIndex index_;
};

TEST_F(EmbeddedDocumentsTest, EachSubDocumentIsHeldOnItsOwn) {
  const InvertedIndex::Embedded* items = index_.EmbeddedAt("items");
  ASSERT_NE(items, nullptr);
  // Two of 0, one of 1, the single sub-document of 2, the one document of 3's array.
  EXPECT_EQ(items->parent, (std::vector<std::uint32_t>{0, 0, 1, 2, 3}));
  EXPECT_EQ(items->index.FieldAt("items.name")->documents, 5u);
  // Nested ones belong to their parent sub-document's index.
  EXPECT_EQ(index_.EmbeddedAt("items.parts"), nullptr);
  ASSERT_NE(items->index.EmbeddedAt("items.parts"), nullptr);
  EXPECT_EQ(items->index.EmbeddedAt("items.parts")->parent, (std::vector<std::uint32_t>{3, 3}));
  // Their fields are not the document's.
  EXPECT_EQ(index_.FieldAt("items.name"), nullptr);
  EXPECT_TRUE(Labels(R"({"text": {"query": "apple", "path": "items.name"}})").empty());
}

TEST_F(EmbeddedDocumentsTest, ASubDocumentMustMatchTheWholeOperatorAlone) {
  // 0 has an apple and a green pear, but no green apple.
  EXPECT_EQ(Labels(R"({"embeddedDocument": {"path": "items", "operator": {"compound": {"must": [
                {"text": {"query": "apple", "path": "items.name"}},
                {"equals": {"path": "items.color", "value": "green"}}]}}}})"),
            (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(Labels(R"({"embeddedDocument": {"path": "items", "operator": {"compound": {
                "must": [{"text": {"query": "apple", "path": "items.name"}}],
                "mustNot": [{"equals": {"path": "items.color", "value": "green"}}]}}}})"),
            (std::vector<std::uint32_t>{0, 2}));
  // Beside the document's own fields.
  EXPECT_EQ(Labels(R"({"compound": {"must": [
                {"text": {"query": "apple", "path": "title"}},
                {"embeddedDocument": {"path": "items",
                                      "operator": {"text": {"query": "apple",
                                                            "path": "items.name"}}}}]}})"),
            (std::vector<std::uint32_t>{1}));
}

TEST_F(EmbeddedDocumentsTest, ScoresCombineTheMatchingSubDocuments) {
  constexpr std::string_view kApple =
      R"({"embeddedDocument": {"path": "items", "operator": {"text": {"query": "apple pear",
                                                                      "path": "items.name"}})";
  auto with = [&](std::string_view score) {
    return Run(std::string(kApple) + std::string(score) + "}}");
  };
  const double apple0 = ItemScore(0, "apple"), pear0 = ItemScore(1, "pear");
  EXPECT_DOUBLE_EQ(with("").at(0), apple0 + pear0);
  EXPECT_DOUBLE_EQ(with(R"(, "score": {"embedded": {"aggregate": "maximum"}})").at(0),
                   std::max(apple0, pear0));
  EXPECT_DOUBLE_EQ(with(R"(, "score": {"embedded": {"aggregate": "minimum"}})").at(0),
                   std::min(apple0, pear0));
  EXPECT_DOUBLE_EQ(with(R"(, "score": {"embedded": {"aggregate": "mean"}})").at(0),
                   (apple0 + pear0) / 2);
  EXPECT_DOUBLE_EQ(with(R"(, "score": {"embedded": {"aggregate": "mean",
                                                    "outerScore": {"boost": {"value": 3}}}})")
                       .at(0),
                   3 * (apple0 + pear0) / 2);
  EXPECT_DOUBLE_EQ(with(R"(, "score": {"constant": {"value": 7}})").at(2), 7);
  // Two terms in one sub-document: that sub-document's own score.
  EXPECT_DOUBLE_EQ(with("").at(2), ItemScore(3, "apple"));
}

TEST_F(EmbeddedDocumentsTest, NestedSubDocumentsAndChanges) {
  constexpr std::string_view kPart = R"({"embeddedDocument": {"path": "items", "operator":
      {"embeddedDocument": {"path": "items.parts",
                            "operator": {"text": {"query": "crust", "path": "items.parts.name"}}}}}})";
  EXPECT_EQ(Labels(kPart), (std::vector<std::uint32_t>{2}));
  constexpr std::string_view kPlum =
      R"({"embeddedDocument": {"path": "items",
                               "operator": {"text": {"query": "plum", "path": "items.name"}}}})";
  EXPECT_EQ(Labels(kPlum), (std::vector<std::uint32_t>{3}));
  // Replacing a document replaces its sub-documents; their labels are used again.
  Put(3, R"({"items": [{"name": "fig"}]})");
  EXPECT_TRUE(Labels(kPlum).empty());
  index_.Remove(2);
  EXPECT_TRUE(Labels(kPart).empty());
  Put(4, R"({"items": [{"name": "plum"}, {"name": "plum"}]})");
  EXPECT_EQ(Labels(kPlum), (std::vector<std::uint32_t>{4}));
  // Of its two, one takes the label 2's sub-document left; one is new.
  EXPECT_EQ(index_.EmbeddedAt("items")->parent.size(), 6u);
}

TEST_F(EmbeddedDocumentsTest, RefusesWhatItCannotAnswer) {
  auto code = [&](std::string_view json) {
    StatusWith<SearchOperator> op = Parse(json);
    if (!op.ok()) return op.status().code();
    StatusWith<SearchScores> scores = EvaluateSearch(op.value(), index_, mapping_);
    return scores.ok() ? ErrorCode::kOk : scores.status().code();
  };
  // Not mapped as embeddedDocuments.
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "title",
                     "operator": {"text": {"query": "x", "path": "title.x"}}}})"),
            ErrorCode::kBadValue);
  // An operator on a path outside the sub-documents.
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "items",
                     "operator": {"text": {"query": "x", "path": "title"}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "items"}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"embeddedDocument": {"operator": {"exists": {"path": "items.name"}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "items", "operator": [
                     {"exists": {"path": "items.name"}}]}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "items", "x": 1,
                     "operator": {"exists": {"path": "items.name"}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "items",
                     "operator": {"exists": {"path": "items.name"}},
                     "score": {"embedded": {"aggregate": "median"}}}})"),
            ErrorCode::kBadValue);
  // The embedded score belongs to embeddedDocument alone.
  EXPECT_EQ(code(R"({"text": {"query": "x", "path": "title",
                     "score": {"embedded": {"aggregate": "sum"}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"embeddedDocument": {"path": "items",
                     "operator": {"exists": {"path": "items.name"}}}})"),
            ErrorCode::kOk);
}

}  // namespace
}  // namespace quarry::text
