// The filter table's postings: the candidates of a filter always include every label the
// filter matches (checked against the matcher over varied values), narrow where a condition
// allows it, and follow each change of a label's values.
#include "vector/filter_table.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bson/json.h"
#include "query/match/matcher.h"

namespace quarry::vector {
namespace {

bson::Document Json(std::string_view json) { return bson::FromJson(json).value(); }

// Values of mixed types and shapes: numbers of each type, strings, arrays, null, missing, and
// sub-documents with arrays of sub-documents for the dotted path.
std::string RandomValues(std::mt19937& rng) {
  auto number = [&] {
    const int n = static_cast<int>(rng() % 10);
    switch (rng() % 4) {
      case 0:
        return std::to_string(n);
      case 1:
        return std::to_string(n) + ".5";
      case 2:
        return R"({"$numberLong": ")" + std::to_string(n) + R"("})";
      default:
        return std::to_string(n) + ".0";
    }
  };
  std::string json = "{";
  switch (rng() % 6) {
    case 0:
      json += R"("a": )" + number();
      break;
    case 1:
      json += R"("a": [)" + number() + ", " + number() + "]";
      break;
    case 2:
      json += R"("a": "s)" + std::to_string(rng() % 5) + "\"";
      break;
    case 3:
      json += R"("a": null)";
      break;
    case 4:
      json += R"("a": {"x": 1})";
      break;
    default:
      json += R"("b": 1)";  // no "a"
  }
  json += R"(, "m": )";
  json += rng() % 2 == 0 ? R"({"k": )" + number() + "}"
                         : R"([{"k": )" + number() + R"(}, {"k": )" + number() + "}]";
  json += "}";
  return json;
}

const char* const kFilters[] = {
    R"({"a": 3})",
    R"({"a": 3.5})",
    R"({"a": {"$eq": 7}})",
    R"({"a": {"$in": [1, 2.5, "s1"]}})",
    R"({"a": {"$lt": 4}})",
    R"({"a": {"$lte": 4}})",
    R"({"a": {"$gt": 6.5}})",
    R"({"a": {"$gte": 6}})",
    R"({"a": {"$gt": 2, "$lt": 3}})",
    R"({"a": {"$gte": "s2"}})",
    R"({"a": "s3"})",
    R"({"a": {"x": 1}})",
    R"({"a": null})",
    R"({"a": {"$ne": 3}})",
    R"({"a": {"$nin": [1, 2]}})",
    R"({"a": {"$exists": false}})",
    R"({"m.k": 4})",
    R"({"m.k": {"$lt": 2}})",
    R"({"$and": [{"a": {"$gte": 2}}, {"m.k": {"$lte": 5}}]})",
    R"({"$or": [{"a": 1}, {"m.k": 2}]})",
    R"({"$or": [{"a": {"$lt": 2}}, {"a": "s1", "m.k": {"$gt": 8}}]})",
    R"({"$or": [{"a": 1}, {"a": null}]})",
    R"({"a": {"$gte": 5}, "$or": [{"m.k": 1}, {"$and": [{"m.k": 3}]}]})",
    R"({"a": {"$lt": 8}, "m.k": 9})",
};

TEST(FilterTableTest, CandidatesIncludeEveryMatchAndNarrow) {
  std::mt19937 rng(7);
  FilterTable table;
  table.Reset({"a", "m.k"});
  std::vector<bson::Document> values;
  for (int label = 0; label < 400; ++label) {
    values.push_back(Json(RandomValues(rng)));
    table.Append(values.back().view().bytes());
  }
  // Changes after the load: new values for some labels, none for others.
  for (int change = 0; change < 150; ++change) {
    const std::size_t label = rng() % values.size();
    values[label] = change % 5 == 0 ? bson::Document() : Json(RandomValues(rng));
    table.Set(label,
              values[label].view().empty() ? std::string_view() : values[label].view().bytes());
  }
  int narrowed = 0;
  for (const char* json : kFilters) {
    const bson::Document filter = Json(json);
    const query::Matcher matcher = query::Matcher::Parse(filter.view()).value();
    std::vector<std::uint32_t> matches;
    for (std::uint32_t label = 0; label < values.size(); ++label) {
      if (matcher.Matches(table.Document(label))) matches.push_back(label);
    }
    const auto candidates = table.Candidates(filter.view(), values.size());
    if (!candidates.has_value()) continue;
    ++narrowed;
    EXPECT_TRUE(std::is_sorted(candidates->begin(), candidates->end())) << json;
    EXPECT_EQ(std::adjacent_find(candidates->begin(), candidates->end()), candidates->end())
        << json;
    for (std::uint32_t label : matches) {
      EXPECT_TRUE(std::binary_search(candidates->begin(), candidates->end(), label))
          << json << " misses label " << label << ": " << table.Document(label).ToJson();
    }
    EXPECT_LT(candidates->size(), values.size()) << json;
  }
  EXPECT_GE(narrowed, 17);
}

TEST(FilterTableTest, ConditionsThatCannotNarrowGiveNone) {
  FilterTable table;
  table.Reset({"a", "t.0"});
  table.Append(Json(R"({"a": 1, "t": [5]})").view().bytes());
  table.Append(Json(R"({"b": 1})").view().bytes());
  for (const char* json : {R"({"a": null})", R"({"a": {"$ne": 1}})", R"({"a": {"$regex": "x"}})",
                           R"({"a": [1]})", R"({"$or": [{"a": 1}, {"b": 1}]})", R"({"t.0": 5})",
                           R"({"other": 1})", R"({"a": {"$in": [1, null]}})", R"({})"}) {
    EXPECT_FALSE(table.Candidates(Json(json).view(), 10).has_value()) << json;
  }
}

TEST(FilterTableTest, FollowsChangesAndRespectsTheLimit) {
  FilterTable table;
  table.Reset({"a"});
  for (int label = 0; label < 10; ++label) {
    table.Append(Json(R"({"a": )" + std::to_string(label % 2) + "}").view().bytes());
  }
  const bson::Document ones = Json(R"({"a": 1})");
  EXPECT_EQ(table.Candidates(ones.view(), 10), (std::vector<std::uint32_t>{1, 3, 5, 7, 9}));
  EXPECT_FALSE(table.Candidates(ones.view(), 4).has_value());
  table.Set(1, Json(R"({"a": 1})").view().bytes());  // unchanged values
  table.Set(3, Json(R"({"a": 2})").view().bytes());
  table.Set(5, {});
  table.Set(4, Json(R"({"a": [1, 1.0]})").view().bytes());
  EXPECT_EQ(table.Candidates(ones.view(), 10), (std::vector<std::uint32_t>{1, 4, 7, 9}));
  EXPECT_EQ(table.Candidates(Json(R"({"a": {"$gt": 1}})").view(), 10),
            (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(table.Candidates(Json(R"({"a": 5})").view(), 10), (std::vector<std::uint32_t>{}));
  EXPECT_EQ(table.Candidates(Json(R"({"$or": [{"a": 2}, {"a": {"$in": [0, 5]}}]})").view(), 10),
            (std::vector<std::uint32_t>{0, 2, 3, 6, 8}));
  table.Reset({"a"});
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.Candidates(ones.view(), 10), (std::vector<std::uint32_t>{}));
}

}  // namespace
}  // namespace quarry::vector
