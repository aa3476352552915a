#include "text/search_facets.h"

#include <gtest/gtest.h>

#include "bson/json.h"

namespace quarry::text {
namespace {

class SearchFacetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mapping_.root.fields["genres"].value_kinds = kTokenValues;
    mapping_.root.fields["year"].value_kinds = kNumberValues;
    mapping_.root.fields["released"].value_kinds = kDateValues;
    Put(0, R"({"genres": ["Drama", "Drama", "Crime"], "year": 1972})");
    Put(1, R"({"genres": ["Action"], "year": [1985, 1989]})");
    Put(2, R"({"genres": "Drama", "year": 2001.5,
               "released": {"$date": "2001-06-01T00:00:00Z"}})");
    Put(3, R"({"year": 1960, "released": {"$date": "1960-01-01T00:00:00Z"}})");
  }

  void Put(std::uint32_t label, std::string_view json) {
    bson::Document document = bson::FromJson(json).value();
    index_.Set(label, mapping_, document.view());
  }

  StatusWith<FacetCollector> Parse(std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    return ParseFacetCollector(spec.view().Get("facet"));
  }

  std::string Count(std::string_view json, std::vector<std::uint32_t> labels = {0, 1, 2, 3}) {
    StatusWith<FacetCollector> collector = Parse(json);
    EXPECT_TRUE(collector.ok()) << collector.status().ToString();
    if (!collector.ok()) return "";
    EXPECT_TRUE(CheckFacetsMapped(collector.value().facets, mapping_).ok());
    return CountFacets(collector.value().facets, index_, labels).view().ToJson();
  }

  FullTextMapping mapping_;
  InvertedIndex index_;
};

std::string Json(std::string_view json) { return bson::FromJson(json).value().view().ToJson(); }

TEST_F(SearchFacetsTest, StringFacetsCountEachDocumentOncePerValue) {
  EXPECT_EQ(Count(R"({"facet": {"facets": {"g": {"type": "string", "path": "genres"}}}})"),
            Json(R"({"g": {"buckets": [{"_id": "Drama", "count": {"$numberLong": "2"}},
                                       {"_id": "Action", "count": {"$numberLong": "1"}},
                                       {"_id": "Crime", "count": {"$numberLong": "1"}}]}})"));
  EXPECT_EQ(Count(R"({"facet": {"facets": {"g": {"type": "string", "path": "genres",
                                                 "numBuckets": 1}}}})",
                  {1, 2}),
            Json(R"({"g": {"buckets": [{"_id": "Action", "count": {"$numberLong": "1"}}]}})"));
}

TEST_F(SearchFacetsTest, RangeFacetsCountIntoBoundariesAndTheDefault) {
  EXPECT_EQ(Count(R"({"facet": {"facets": {"y": {"type": "number", "path": "year",
                                                 "boundaries": [1970, 1980, 1990.5],
                                                 "default": "other"}}}})"),
            Json(R"({"y": {"buckets": [{"_id": 1970, "count": {"$numberLong": "1"}},
                                       {"_id": 1980, "count": {"$numberLong": "1"}},
                                       {"_id": "other", "count": {"$numberLong": "2"}}]}})"));
  EXPECT_EQ(Count(R"({"facet": {"facets": {"d": {"type": "date", "path": "released",
      "boundaries": [{"$date": "2000-01-01T00:00:00Z"}, {"$date": "2010-01-01T00:00:00Z"}]}}}})"),
            Json(R"({"d": {"buckets": [{"_id": {"$date": "2000-01-01T00:00:00Z"},
                                        "count": {"$numberLong": "1"}}]}})"));
}

TEST_F(SearchFacetsTest, FacetsNeedTheirPathsMappedAsTheirTypes) {
  StatusWith<FacetCollector> collector =
      Parse(R"({"facet": {"facets": {"g": {"type": "number", "path": "genres",
                                           "boundaries": [1, 2]}}}})");
  ASSERT_TRUE(collector.ok());
  const Status mapped = CheckFacetsMapped(collector.value().facets, mapping_);
  EXPECT_EQ(mapped.code(), ErrorCode::kBadValue);
  EXPECT_NE(std::string(mapped.reason()).find("Cannot facet on field \"genres\""),
            std::string::npos);
}

TEST_F(SearchFacetsTest, RefusesMalformedCollectors) {
  auto code = [&](std::string_view json) { return Parse(json).status().code(); };
  EXPECT_TRUE(Parse(R"({"facet": {"operator": {"exists": {"path": "year"}},
                                  "facets": {"g": {"type": "string", "path": "genres"}}}})")
                  .value()
                  .op.has_value());
  EXPECT_EQ(code(R"({"facet": {}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {}}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"g": {"type": "color", "path": "x"}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"g": {"type": "string"}}}})"), ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"g": {"type": "string", "path": "x",
                                                "numBuckets": 1001}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"y": {"type": "number", "path": "x",
                                                "boundaries": [2, 1]}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"y": {"type": "number", "path": "x",
                                                "boundaries": [1]}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"y": {"type": "date", "path": "x",
                                                "boundaries": [1, 2]}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"facets": {"y": {"type": "number", "path": "x",
                                                "boundaries": [1, 2], "numBuckets": 3}}}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(code(R"({"facet": {"operator": {"text": {"query": "x"}},
                               "facets": {"g": {"type": "string", "path": "x"}}}})"),
            ErrorCode::kBadValue);
}

}  // namespace
}  // namespace quarry::text
