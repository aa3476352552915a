// createSearchIndexes' definitions: both accepted forms reduce to the same vector fields, and
// every invalid definition is refused with a message naming the field.
#include "vector/search_index_definition.h"

#include <gtest/gtest.h>

#include "bson/json.h"

namespace quarry::vector {
namespace {

StatusWith<SearchIndexDefinition> Parse(std::string_view type, std::string_view json) {
  bson::Document definition = bson::FromJson(json).value();
  return ParseSearchIndexDefinition(type, definition.view());
}

TEST(SearchIndexDefinitionTest, AVectorSearchDefinitionGivesItsVectorsAndFilters) {
  auto parsed = Parse("vectorSearch", R"({"fields": [
      {"type": "vector", "path": "a.emb", "numDimensions": 384, "similarity": "dotProduct",
       "hnswOptions": {"maxEdges": 32, "numEdgeCandidates": 400}},
      {"type": "filter", "path": "genre"},
      {"type": "vector", "path": "other", "numDimensions": 3.0, "similarity": "euclidean",
       "indexingMethod": "flat", "quantization": "none"}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const SearchIndexDefinition& def = parsed.value();
  ASSERT_EQ(def.vectors.size(), 2u);
  EXPECT_EQ(def.vectors[0].path, "a.emb");
  EXPECT_EQ(def.vectors[0].dimensions, 384u);
  EXPECT_EQ(def.vectors[0].similarity, "dotProduct");
  EXPECT_EQ(def.vectors[0].max_edges, 32u);
  EXPECT_EQ(def.vectors[0].num_edge_candidates, 400u);
  EXPECT_FALSE(def.vectors[0].exact_only);
  EXPECT_TRUE(def.vectors[1].exact_only);
  EXPECT_TRUE(def.IsFilterPath("genre"));
  EXPECT_FALSE(def.IsFilterPath("a.emb"));
  EXPECT_EQ(def.FindVector("other")->dimensions, 3u);
  EXPECT_EQ(def.FindVector("genre"), nullptr);
}

TEST(SearchIndexDefinitionTest, ASearchMappingOfStringsGivesTheFullTextMapping) {
  auto parsed = Parse("search", R"({"analyzer": "lucene.english", "mappings": {
      "dynamic": false, "fields": {
        "title": [{"type": "string", "searchAnalyzer": "lucene.keyword"}, {"type": "token"}],
        "meta": {"type": "document", "fields": {"body": {"type": "string",
                                                          "analyzer": "lucene.simple"}}},
        "extra": {"type": "document", "dynamic": true},
        "name": {"type": "autocomplete", "tokenization": "nGram", "maxGrams": 4,
                 "foldDiacritics": false},
        "year": {"type": "number"}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const SearchIndexDefinition& def = parsed.value();
  ASSERT_TRUE(def.full_text.has_value());
  const text::FullTextMapping& mapping = *def.full_text;
  EXPECT_EQ(mapping.analyzer->name(), "lucene.english");
  EXPECT_EQ(mapping.SearchAnalyzerFor("title").name(), "lucene.keyword");
  EXPECT_EQ(mapping.SearchAnalyzerFor("meta.body").name(), "lucene.simple");
  EXPECT_EQ(mapping.SearchAnalyzerFor("extra.any").name(), "lucene.english");
  EXPECT_TRUE(mapping.MayHoldStrings("title"));
  EXPECT_TRUE(mapping.MayHoldStrings("extra.any.deeper"));
  EXPECT_FALSE(mapping.MayHoldStrings("year"));
  EXPECT_FALSE(mapping.MayHoldStrings("other"));
  const text::AutocompleteOptions* name = mapping.AutocompleteAt("name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->tokenization, text::AutocompleteOptions::Tokenization::kNGram);
  EXPECT_EQ(name->min_grams, 2u);
  EXPECT_EQ(name->max_grams, 4u);
  EXPECT_FALSE(name->fold_diacritics);
  EXPECT_EQ(mapping.AutocompleteAt("title"), nullptr);
  EXPECT_EQ(def.filter_paths, (std::vector<std::string>{"title", "year"}));
  EXPECT_TRUE(def.vectors.empty());
}

TEST(SearchIndexDefinitionTest, AKnnVectorOnlySearchMappingHoldsNoStrings) {
  auto parsed = Parse("search", R"({"mappings": {"fields": {
      "e": {"type": "knnVector", "dimensions": 3, "similarity": "cosine"}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_FALSE(parsed.value().full_text.has_value());
  EXPECT_EQ(parsed.value().vectors.size(), 1u);
}

TEST(SearchIndexDefinitionTest, ANestedRootSplitsTheFiltersIntoElementAndParentFields) {
  auto parsed = Parse("vectorSearch", R"({"nestedRoot": "book.sections", "fields": [
      {"type": "vector", "path": "book.sections.emb", "numDimensions": 4,
       "similarity": "euclidean"},
      {"type": "filter", "path": "book.sections.meta.page"},
      {"type": "filter", "path": "book.title"},
      {"type": "filter", "path": "genre"}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const SearchIndexDefinition& def = parsed.value();
  EXPECT_EQ(def.nested_root, "book.sections");
  EXPECT_TRUE(def.IsUnderNestedRoot("book.sections.emb"));
  EXPECT_FALSE(def.IsUnderNestedRoot("book.sectionsx.emb"));
  EXPECT_FALSE(def.IsUnderNestedRoot("book.sections"));
  EXPECT_EQ(def.ElementFilterPaths(), (std::vector<std::string>{"meta.page"}));
  EXPECT_EQ(def.ParentFilterPaths(), (std::vector<std::string>{"book.title", "genre"}));
}

TEST(SearchIndexDefinitionTest, WithoutANestedRootEveryFilterIsTheDocuments) {
  auto parsed = Parse("vectorSearch", R"({"fields": [
      {"type": "vector", "path": "emb", "numDimensions": 4, "similarity": "cosine"},
      {"type": "filter", "path": "genre"}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_FALSE(parsed.value().IsUnderNestedRoot("emb"));
  EXPECT_TRUE(parsed.value().ElementFilterPaths().empty());
  EXPECT_EQ(parsed.value().ParentFilterPaths(), (std::vector<std::string>{"genre"}));
}

TEST(SearchIndexDefinitionTest, QuantizationIsReadPerVectorField) {
  auto parsed = Parse("vectorSearch", R"({"fields": [
      {"type": "vector", "path": "a", "numDimensions": 4, "similarity": "cosine",
       "quantization": "scalar"},
      {"type": "vector", "path": "b", "numDimensions": 4, "similarity": "cosine",
       "quantization": "binary"},
      {"type": "vector", "path": "c", "numDimensions": 4, "similarity": "cosine"}]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().FindVector("a")->quantization, Quantization::kScalar);
  EXPECT_EQ(parsed.value().FindVector("b")->quantization, Quantization::kBinary);
  EXPECT_EQ(parsed.value().FindVector("c")->quantization, Quantization::kNone);
}

TEST(SearchIndexDefinitionTest, TheOlderKnnVectorMappingIsReadTheSameWay) {
  auto parsed = Parse("search", R"({"mappings": {"dynamic": true, "fields": {
      "embedding": {"type": "knnVector", "dimensions": 1536, "similarity": "cosine"},
      "meta": {"type": "document", "fields": {"year": {"type": "number"}}},
      "title": [{"type": "string"}, {"type": "token"}]}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed.value().vectors.size(), 1u);
  EXPECT_EQ(parsed.value().vectors[0].path, "embedding");
  EXPECT_EQ(parsed.value().vectors[0].dimensions, 1536u);
  EXPECT_TRUE(parsed.value().IsFilterPath("meta.year"));
  EXPECT_TRUE(parsed.value().IsFilterPath("title"));
}

TEST(SearchIndexDefinitionTest, FacetTypesAreHeldAsTheirValueTypes) {
  auto parsed = Parse("search", R"({"mappings": {"fields": {
      "genres": {"type": "stringFacet"}, "year": {"type": "numberFacet"},
      "released": {"type": "dateFacet"},
      "name": {"type": "token", "normalizer": "lowercase"}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_TRUE(parsed.value().full_text.has_value());
  const text::FullTextMapping& mapping = *parsed.value().full_text;
  EXPECT_EQ(mapping.ValueKindsAt("genres"), static_cast<unsigned>(text::kTokenValues));
  EXPECT_EQ(mapping.ValueKindsAt("year"), static_cast<unsigned>(text::kNumberValues));
  EXPECT_EQ(mapping.ValueKindsAt("released"), static_cast<unsigned>(text::kDateValues));
  std::vector<std::string> held;
  bson::Document document = bson::FromJson(R"({"name": "ÉCOLE Nord", "genres": "Drama"})").value();
  mapping.ForEachValue(document.view(), [&](const std::string& path, bson::ValueView value, bool) {
    held.push_back(path + "=" + std::string(value.String()));
  });
  EXPECT_EQ(held, (std::vector<std::string>{"name=école nord", "genres=Drama"}));
}

TEST(SearchIndexDefinitionTest, ATypeSetMapsADynamicDocumentsUnnamedFields) {
  auto parsed = Parse("search", R"({"typeSets": [
      {"name": "words", "types": [{"type": "string", "analyzer": "lucene.english"},
                                  {"type": "autocomplete"}, {"type": "number"}]},
      {"name": "plain", "types": [{"type": "token"}]}],
    "mappings": {"dynamic": {"typeSet": "words"}, "fields": {
      "meta": {"type": "document", "dynamic": {"typeSet": "plain"}},
      "other": {"type": "document", "dynamic": true}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_TRUE(parsed.value().full_text.has_value());
  const text::FullTextMapping& mapping = *parsed.value().full_text;
  // Under the root, and under its unnamed sub-documents, as the typeSet says.
  for (const char* path : {"title", "a.b.c"}) {
    EXPECT_TRUE(mapping.MayHoldStrings(path)) << path;
    EXPECT_EQ(mapping.AnalyzerFor(path).name(), "lucene.english") << path;
    EXPECT_EQ(mapping.ValueKindsAt(path), static_cast<unsigned>(text::kNumberValues)) << path;
  }
  EXPECT_FALSE(mapping.MayHoldStrings("meta.x"));
  EXPECT_EQ(mapping.ValueKindsAt("meta.x"), static_cast<unsigned>(text::kTokenValues));
  EXPECT_TRUE(mapping.MayHoldStrings("other.x"));
  EXPECT_EQ(mapping.ValueKindsAt("other.x"), static_cast<unsigned>(text::kDynamicValues));
  bson::Document document =
      bson::FromJson(
          R"({"title": "Fox", "n": 3, "ok": true, "sub": {"t": "x", "n": 4}, "meta": {"k": "K", "n": 5}})")
          .value();
  std::vector<std::string> strings, values, grams;
  mapping.ForEachString(
      document.view(), [&](const std::string& path, std::string_view, const text::SearchAnalyzer&) {
        strings.push_back(path);
      });
  mapping.ForEachValue(document.view(), [&](const std::string& path, bson::ValueView, bool) {
    values.push_back(path);
  });
  mapping.ForEachAutocompleteString(
      document.view(), [&](const std::string& path, std::string_view,
                           const text::AutocompleteOptions&) { grams.push_back(path); });
  EXPECT_EQ(strings, (std::vector<std::string>{"title", "sub.t"}));
  EXPECT_EQ(values, (std::vector<std::string>{"n", "sub.n", "meta.k"}));
  EXPECT_EQ(grams, (std::vector<std::string>{"title", "sub.t"}));
}

TEST(SearchIndexDefinitionTest, EmbeddedDocumentsGetMappingsOfTheirOwn) {
  auto parsed = Parse("search", R"({"analyzer": "lucene.english", "mappings": {"fields": {
      "items": {"type": "embeddedDocuments", "fields": {
          "name": {"type": "string"}, "qty": {"type": "number"},
          "parts": {"type": "embeddedDocuments", "dynamic": true}}},
      "order": {"type": "document", "fields": {
          "lines": [{"type": "document", "dynamic": true}, {"type": "embeddedDocuments"}]}}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_TRUE(parsed.value().full_text.has_value());
  const text::FullTextMapping& mapping = *parsed.value().full_text;
  const text::FullTextMapping* items = mapping.EmbeddedAt("items");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->prefix, "items.");
  EXPECT_TRUE(items->MayHoldStrings("items.name"));
  EXPECT_EQ(items->ValueKindsAt("items.qty"), static_cast<unsigned>(text::kNumberValues));
  EXPECT_EQ(items->SearchAnalyzerFor("items.name").name(), "lucene.english");
  // The document does not hold the sub-documents' fields; the nested ones are items' own.
  EXPECT_FALSE(mapping.MayHoldStrings("items.name"));
  EXPECT_EQ(mapping.EmbeddedAt("items.parts"), nullptr);
  ASSERT_NE(items->EmbeddedAt("items.parts"), nullptr);
  EXPECT_TRUE(items->EmbeddedAt("items.parts")->MayHoldStrings("items.parts.any"));
  // Mapped both ways, the lines are held in the document and on their own.
  EXPECT_TRUE(mapping.MayHoldStrings("order.lines.text"));
  ASSERT_NE(mapping.EmbeddedAt("order.lines"), nullptr);
}

TEST(SearchIndexDefinitionTest, MultiAnalyzersAreStringMappingsOfTheirOwn) {
  auto parsed = Parse("search", R"({"mappings": {"fields": {"title": {"type": "string",
      "multi": {"english": {"type": "string", "analyzer": "lucene.english"},
                "exact": {"type": "string", "analyzer": "lucene.keyword",
                          "searchAnalyzer": "lucene.keyword"}}}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const text::FullTextMapping& mapping = *parsed.value().full_text;
  EXPECT_EQ(mapping.AnalyzerFor("title").name(), "lucene.standard");
  EXPECT_EQ(mapping.AnalyzerFor(text::MultiPath("title", "english")).name(), "lucene.english");
  EXPECT_EQ(mapping.SearchAnalyzerFor(text::MultiPath("title", "exact")).name(), "lucene.keyword");
  EXPECT_FALSE(mapping.MayHoldStrings(text::MultiPath("title", "french")));
  std::vector<std::string> held;
  bson::Document document = bson::FromJson(R"({"title": "Running Men"})").value();
  mapping.ForEachString(document.view(), [&](const std::string& path, std::string_view value,
                                             const text::SearchAnalyzer& analyzer) {
    EXPECT_EQ(value, "Running Men");
    held.push_back(path + " " + std::string(analyzer.name()));
  });
  EXPECT_EQ(held,
            (std::vector<std::string>{"title lucene.standard",
                                      text::MultiPath("title", "english") + " lucene.english",
                                      text::MultiPath("title", "exact") + " lucene.keyword"}));
}

TEST(SearchIndexDefinitionTest, GeoFieldsHoldTheirPoints) {
  auto parsed = Parse("search", R"({"mappings": {"dynamic": true, "fields": {
      "loc": {"type": "geo", "indexShapes": false}}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const text::FullTextMapping& mapping = *parsed.value().full_text;
  EXPECT_EQ(mapping.ValueKindsAt("loc"), static_cast<unsigned>(text::kGeoPoints));
  std::vector<std::string> held;
  bson::Document document = bson::FromJson(R"({"loc": {"type": "Point", "coordinates": [1, 2]},
      "other": {"type": "Point", "coordinates": [1, 2]}})")
                                .value();
  mapping.ForEachValue(document.view(), [&](const std::string& path, bson::ValueView, bool) {
    held.push_back(path);
  });
  // A dynamic mapping walks into other points as documents, holding their numbers.
  EXPECT_EQ(held, (std::vector<std::string>{"loc", "other.coordinates", "other.coordinates"}));
}

struct Refusal {
  std::string_view type;
  std::string_view json;
  ErrorCode code;
  std::string_view words;
};

class SearchIndexDefinitionRefusalTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(SearchIndexDefinitionRefusalTest, IsRefusedNamingTheField) {
  auto parsed = Parse(GetParam().type, GetParam().json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), GetParam().code);
  EXPECT_NE(parsed.status().reason().find(GetParam().words), std::string::npos)
      << parsed.status().reason();
}

INSTANTIATE_TEST_SUITE_P(
    Definitions, SearchIndexDefinitionRefusalTest,
    ::testing::Values(
        Refusal{"vectorSearch", R"({})", ErrorCode::kBadValue, "fields"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 8193, "similarity": "cosine"}]})",
                ErrorCode::kBadValue, "fields[0].numDimensions"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 1.5, "similarity": "cosine"}]})",
                ErrorCode::kBadValue, "numDimensions"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "",
            "numDimensions": 3, "similarity": "cosine"}]})",
                ErrorCode::kBadValue, "fields[0].path"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "a..b",
            "numDimensions": 3, "similarity": "cosine"}]})",
                ErrorCode::kBadValue, "not a valid field path"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "filter", "path": "$x"}, {"type": "vector",
            "path": "e", "numDimensions": 3, "similarity": "cosine"}]})",
                ErrorCode::kBadValue, "fields[0].path"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 3}]})",
                ErrorCode::kBadValue, "similarity"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 3, "similarity": "cosine", "hnswOptions": {"numEdgeCandidates": 50}}]})",
                ErrorCode::kBadValue, "numEdgeCandidates"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 3, "similarity": "cosine"}, {"type": "filter", "path": "e"}]})",
                ErrorCode::kBadValue, "twice"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 8, "similarity": "cosine", "quantization": "int4"}]})",
                ErrorCode::kBadValue, "fields[0].quantization"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 8, "similarity": "cosine", "quantization": true}]})",
                ErrorCode::kBadValue, "fields[0].quantization"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "e",
            "numDimensions": 3, "similarity": "cosine"}], "nestedRoot": "parts"})",
                ErrorCode::kBadValue, "must be under the nestedRoot"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "partsx.e",
            "numDimensions": 3, "similarity": "cosine"}], "nestedRoot": "parts"})",
                ErrorCode::kBadValue, "must be under the nestedRoot"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "parts.e",
            "numDimensions": 3, "similarity": "cosine"}, {"type": "filter", "path": "parts"}],
            "nestedRoot": "parts"})",
                ErrorCode::kBadValue, "the filter path \"parts\""},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "a.b.e",
            "numDimensions": 3, "similarity": "cosine"}, {"type": "filter", "path": "a"}],
            "nestedRoot": "a.b"})",
                ErrorCode::kBadValue, "the filter path \"a\""},
        Refusal{"vectorSearch", R"({"fields": [{"type": "vector", "path": "parts.e",
            "numDimensions": 3, "similarity": "cosine"}], "nestedRoot": 1})",
                ErrorCode::kBadValue, "nestedRoot"},
        Refusal{"vectorSearch", R"({"fields": [{"type": "geo", "path": "e"}]})",
                ErrorCode::kBadValue, "fields[0].type"},
        Refusal{"search", R"({"fields": []})", ErrorCode::kBadValue, "Attribute mappings missing"},
        Refusal{"search", R"({"mappings": {"fields": {"loc": {"type": "geo",
            "indexShapes": true}}}})",
                ErrorCode::kNotImplemented, "mappings.fields.loc.indexShapes"},
        Refusal{"search", R"({"mappings": {"fields": {"loc": {"type": "geo", "x": 1}}}})",
                ErrorCode::kBadValue, "mappings.fields.loc.x"},
        Refusal{"search", R"({"mappings": {"fields": {"items": {"type": "embeddedDocuments",
            "color": "red"}}}})",
                ErrorCode::kBadValue, "mappings.fields.items.color"},
        Refusal{"search", R"({"mappings": {"fields": {"items": {"type": "embeddedDocuments",
            "fields": {"v": {"type": "knnVector", "dimensions": 3, "similarity": "cosine"}}}}}})",
                ErrorCode::kNotImplemented, "knnVector fields under"},
        Refusal{"search", R"({"mappings": {"fields": {"items": {"type": "embeddedDocuments",
            "storedSource": true}}}})",
                ErrorCode::kNotImplemented, "storedSource"},
        Refusal{"search", R"({"mappings": {"fields": {"items": [{"type": "embeddedDocuments"},
            {"type": "embeddedDocuments"}]}}})",
                ErrorCode::kBadValue, "twice"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzer": "lucene.arabic"})",
                ErrorCode::kNotImplemented, "lucene.arabic"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [{"name": "x"}]})",
                ErrorCode::kBadValue, "analyzers[0].tokenizer"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "standard"}},
            {"name": "x", "tokenizer": {"type": "keyword"}}]})",
                ErrorCode::kBadValue, "twice"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "uaxUrlEmail"}}]})",
                ErrorCode::kNotImplemented, "uaxUrlEmail"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "standard"},
             "tokenFilters": [{"type": "kStemming"}]}]})",
                ErrorCode::kNotImplemented, "kStemming"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "standard"},
             "tokenFilters": [{"type": "shingle", "minShingleSize": 3, "maxShingleSize": 2}]}]})",
                ErrorCode::kBadValue, "minShingleSize"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "standard"},
             "tokenFilters": [{"type": "shingle", "minShingleSize": 1, "maxShingleSize": 2}]}]})",
                ErrorCode::kBadValue, "minShingleSize"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "standard"},
             "tokenFilters": [{"type": "limitTokenCount"}]}]})",
                ErrorCode::kBadValue, "maxTokenCount"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "x", "tokenizer": {"type": "standard"},
             "tokenFilters": [{"type": "englishMinimalStem"}]}]})",
                ErrorCode::kBadValue, "englishMinimalStem"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "analyzers": [
            {"name": "lucene.mine", "tokenizer": {"type": "standard"}}]})",
                ErrorCode::kBadValue, "analyzers[0].name"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "string",
            "analyzer": "nobody"}}}})",
                ErrorCode::kBadValue, "nobody"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "synonyms": [{"name": "s"}]})",
                ErrorCode::kBadValue, "synonyms[0].analyzer"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "synonyms": [{"name": "s",
            "analyzer": "lucene.standard", "source": {"collection": "c", "x": 1}}]})",
                ErrorCode::kBadValue, "synonyms[0].source"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "synonyms": [
            {"name": "s", "analyzer": "lucene.standard", "source": {"collection": "c"}},
            {"name": "s", "analyzer": "lucene.english", "source": {"collection": "d"}}]})",
                ErrorCode::kBadValue, "defined twice"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "synonyms": [{"name": "s",
            "analyzer": "nobody", "source": {"collection": "c"}}]})",
                ErrorCode::kBadValue, "nobody"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "synonyms": {"name": "s"}})",
                ErrorCode::kBadValue, "synonyms"},
        Refusal{"search", R"({"mappings": {"dynamic": {"typeSet": "t"}}})", ErrorCode::kBadValue,
                "typeSet"},
        Refusal{"search", R"({"mappings": {"dynamic": {"typeSet": "t"}},
            "typeSets": [{"name": "t", "types": [{"type": "document"}]}]})",
                ErrorCode::kBadValue, "typeSets[0].types"},
        Refusal{"search", R"({"mappings": {"dynamic": true},
            "typeSets": [{"name": "t", "types": [{"type": "number"}, {"type": "number"}]}]})",
                ErrorCode::kBadValue, "twice"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "typeSets": [
            {"name": "t", "types": [{"type": "number"}]}, {"name": "t", "types": [{"type": "token"}]}]})",
                ErrorCode::kBadValue, "defined twice"},
        Refusal{"search",
                R"({"mappings": {"dynamic": true}, "typeSets": [{"name": "t", "types": []}]})",
                ErrorCode::kBadValue, "typeSets[0].types"},
        Refusal{"search", R"({"mappings": {"dynamic": {"typeSet": "t", "x": 1}},
            "typeSets": [{"name": "t", "types": [{"type": "number"}]}]})",
                ErrorCode::kBadValue, "mappings.dynamic.x"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "string",
            "multi": {"english": {"type": "token"}}}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.multi.english.type"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "string",
            "multi": {"a": {"type": "string", "multi": {"b": {"type": "string"}}}}}}}})",
                ErrorCode::kBadValue, "cannot nest"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "string",
            "multi": {"a": {"type": "string", "analyzer": "mine"}}}}}})",
                ErrorCode::kBadValue, "mine"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "string",
            "multi": {"a": {"type": "string", "colour": 1}}}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.multi.a.colour"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "autocomplete",
            "minGrams": 5, "maxGrams": 3}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.minGrams"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "autocomplete",
            "tokenization": "words"}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.tokenization"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "bogus"}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.type"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "token",
            "normalizer": "uppercase"}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.normalizer"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "date",
            "normalizer": "lowercase"}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.normalizer"},
        Refusal{"search", R"({"mappings": {"fields": {"n": {"type": "number",
            "representation": "int64"}}}})",
                ErrorCode::kNotImplemented, "mappings.fields.n.representation"},
        Refusal{"search", R"({"mappings": {"fields": {"n": {"type": "numberFacet",
            "indexDoubles": false}}}})",
                ErrorCode::kNotImplemented, "mappings.fields.n.indexDoubles"},
        Refusal{"search", R"({"mappings": {"fields": {"t": {"type": "string",
            "analyzer": 3}}}})",
                ErrorCode::kBadValue, "mappings.fields.t.analyzer"},
        Refusal{"search", R"({"mappings": {"dynamic": true}, "bogus": 1})", ErrorCode::kBadValue,
                "bogus"},
        Refusal{"search", R"({"mappings": {"fields": {"e": {"type": "knnVector",
            "dimensions": 3, "similarity": "hamming"}}}})",
                ErrorCode::kBadValue, "mappings.fields.e.similarity"},
        Refusal{"other", R"({})", ErrorCode::kBadValue, "type"}));

}  // namespace
}  // namespace quarry::vector
