#include "text/search_highlights.h"

#include <gtest/gtest.h>

#include <memory>

#include "bson/json.h"

namespace quarry::text {
namespace {

SearchOperator Operator(std::string_view json) {
  bson::Document spec = bson::FromJson(json).value();
  const bson::Element first = *spec.view().begin();
  return ParseSearchOperator(first.key, first.value).value();
}

HighlightSpec Spec(std::string_view json) {
  bson::Document spec = bson::FromJson(json).value();
  return ParseHighlight(spec.view().Get("h")).value();
}

FullTextMapping Dynamic() {
  FullTextMapping mapping;
  mapping.root.dynamic = true;
  return mapping;
}

// Each highlight as "path: [text]{hit}[text]", joined by " | ", best first per path.
std::string Highlighted(std::string_view op, std::string_view spec, std::string_view document,
                        const FullTextMapping& mapping = Dynamic()) {
  bson::Document doc = bson::FromJson(document).value();
  const bson::Document highlights = Highlights(Operator(op), mapping, Spec(spec), doc.view());
  std::string out;
  for (const bson::Element& h : highlights.view()) {
    if (!out.empty()) out += " | ";
    out += std::string(h.value.Document().Get("path").String()) + ": ";
    for (const bson::Element& t : h.value.Document().Get("texts").Document()) {
      const bool hit = t.value.Document().Get("type").String() == "hit";
      out += (hit ? "{" : "[") + std::string(t.value.Document().Get("value").String()) +
             (hit ? "}" : "]");
    }
  }
  return out;
}

TEST(SearchHighlightsTest, SplitsEachSentenceWithHitsIntoHitsAndText) {
  const std::string got =
      Highlighted(R"({"text": {"query": "dog", "path": "t"}})", R"({"h": {"path": "t"}})",
                  R"({"t": "A cat sleeps. The Dog barks at the dog next door. Birds sing."})");
  EXPECT_EQ(got, "t: [The ]{Dog}[ barks at the ]{dog}[ next door.]");
}

TEST(SearchHighlightsTest, KeepsTheBestPassagesPerPathAndOnlyThePathsAsked) {
  const std::string got = Highlighted(
      R"({"compound": {"must": [{"text": {"query": "red", "path": ["a", "b"]}}],
                       "mustNot": [{"text": {"query": "blue", "path": "a"}}]}})",
      R"({"h": {"path": "a", "maxNumPassages": 1}})",
      R"({"a": "A red hat. Red, red and red wine. Blue sky.", "b": "red"})");
  const std::string both = Highlighted(R"({"text": {"query": "red", "path": ["a", "b"]}})",
                                       R"({"h": {"path": ["b", "a"]}})",
                                       R"({"a": "A red hat. Red, red and red wine.", "b": "red"})");
  EXPECT_EQ(both, "a: {Red}[, ]{red}[ and ]{red}[ wine.] | a: [A ]{red}[ hat.] | b: {red}");
  // One passage, the best; b is not asked for; mustNot's terms are no hits.
  EXPECT_EQ(got, "a: {Red}[, ]{red}[ and ]{red}[ wine.]");
}

TEST(SearchHighlightsTest, FuzzyQueriesHighlightTheTermsTheyMatch) {
  const std::string got =
      Highlighted(R"({"text": {"query": "bananna", "path": "t", "fuzzy": {"maxEdits": 1}}})",
                  R"({"h": {"path": {"wildcard": "*"}}})", R"({"t": "one banana, two bananas"})");
  EXPECT_EQ(got, "t: [one ]{banana}[, two bananas]");
}

TEST(SearchHighlightsTest, EmbeddedDocumentsHighlightWhatTheirOperatorSearched) {
  FullTextMapping mapping;
  FullTextField review = DocumentField();
  review.dynamic = true;
  mapping.root.fields["reviews"].embedded = std::make_shared<const FullTextField>(review);
  mapping.root.fields["title"].is_string = true;
  mapping.LinkEmbedded();
  const std::string got = Highlighted(
      R"({"compound": {"should": [{"text": {"query": "great", "path": "title"}},
          {"embeddedDocument": {"path": "reviews",
                                "operator": {"text": {"query": "great", "path": "reviews.text"}}}}]}})",
      R"({"h": {"path": ["title", "reviews.text"]}})",
      R"({"title": "A great film", "reviews": [{"text": "Not great."}, {"text": "Dull."}]})",
      mapping);
  EXPECT_EQ(got, "title: [A ]{great}[ film] | reviews.text: [Not ]{great}[.]");
}

TEST(SearchHighlightsTest, ParsesItsOptions) {
  bson::Document bad = bson::FromJson(R"({"h": {"path": "t", "maxNumPassages": 0}})").value();
  EXPECT_EQ(ParseHighlight(bad.view().Get("h")).status().code(), ErrorCode::kBadValue);
  bson::Document none = bson::FromJson(R"({"h": {"maxNumPassages": 2}})").value();
  EXPECT_EQ(ParseHighlight(none.view().Get("h")).status().code(), ErrorCode::kBadValue);
  bson::Document unknown = bson::FromJson(R"({"h": {"path": "t", "x": 1}})").value();
  EXPECT_EQ(ParseHighlight(unknown.view().Get("h")).status().code(), ErrorCode::kBadValue);
  for (const char* path : {R"({"value": "t", "x": 1})", R"({"wildcard": "t*", "value": "t"})",
                           R"([])", R"("")", R"({"value": ""})"}) {
    bson::Document odd = bson::FromJson(std::string(R"({"h": {"path": )") + path + "}}").value();
    EXPECT_EQ(ParseHighlight(odd.view().Get("h")).status().code(), ErrorCode::kBadValue) << path;
  }
  bson::Document multi =
      bson::FromJson(R"({"h": {"path": {"value": "t", "multi": "english"}}})").value();
  EXPECT_EQ(ParseHighlight(multi.view().Get("h")).status().code(), ErrorCode::kNotImplemented);
}

TEST(SearchHighlightsTest, AWildcardPathLeavesMultiAnalyzersOut) {
  FullTextMapping mapping;
  mapping.root.fields["t"].is_string = true;
  mapping.root.fields["t"].multi["english"].is_string = true;
  mapping.root.fields["t"].multi["english"].analyzer = SearchAnalyzer::Find("lucene.english");
  EXPECT_EQ(Highlighted(R"({"text": {"query": "dogs", "path": "t"}})",
                        R"({"h": {"path": {"wildcard": "*"}}})", R"({"t": "Dogs bark."})", mapping),
            "t: {Dogs}[ bark.]");
}

}  // namespace
}  // namespace quarry::text
