// The promise index bounds keep: on random documents and filters, every document a filter
// matches has a key inside the bounds BoundsFor gives for it, whatever arrays, missing fields,
// mixed types and positional paths the document holds. tests/fuzz/index_bounds_fuzzer.cc
// checks the same on inputs a fuzzer finds.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "index_bounds_property.h"
#include "index_test_util.h"

namespace quarry::exec {
namespace {

using testing::ExpectWellFormed;
using testing::Index;
using testing::KeysOfDocument;

TEST(IndexBoundsTest, BoundsNeverLoseAMatchingDocument) {
  std::mt19937_64 rng(20250611);
  testing::RandomIndexData random(
      [&rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); });
  std::vector<bson::Document> docs;
  for (int doc_idx = 0; doc_idx < 400; ++doc_idx) docs.push_back(random.Document(doc_idx));
  std::vector<IndexDescriptor> indexes;
  for (const auto& [key, options] : testing::kBoundsTestIndexes) {
    indexes.push_back(Index(key, options));
  }
  std::vector<std::vector<KeysOfDocument>> keys(indexes.size());
  for (std::size_t index_idx = 0; index_idx < indexes.size(); ++index_idx) {
    for (const bson::Document& doc : docs) {
      keys[index_idx].push_back(testing::KeysIn(indexes[index_idx], doc));
    }
  }
  int bounded_filters = 0;
  int checked_matches = 0;
  int failures = 0;
  for (int filter_idx = 0; filter_idx < 1000 && failures < 5; ++filter_idx) {
    const bson::Document filter_doc = random.Filter();
    StatusWith<query::Matcher> filter = query::Matcher::Parse(filter_doc);
    ASSERT_TRUE(filter.ok()) << filter.status().ToString() << " " << filter_doc.ToJson();
    for (std::size_t check = 0; check < 2 * indexes.size() && failures < 5; ++check) {
      const std::size_t index_idx = check / 2;
      const bool index_multikey = check % 2 == 0;
      std::optional<IndexBounds> bounds =
          BoundsFor(indexes[index_idx], filter.value(), index_multikey);
      if (!bounds.has_value()) continue;
      ++bounded_filters;
      ExpectWellFormed(*bounds);
      for (std::size_t doc_idx = 0; doc_idx < docs.size(); ++doc_idx) {
        const KeysOfDocument& doc_keys = keys[index_idx][doc_idx];
        if (doc_keys.keys.has_value() && (index_multikey || !doc_keys.multikey) &&
            filter.value().Matches(docs[doc_idx])) {
          ++checked_matches;
        }
        std::optional<std::string> lost =
            testing::LostMatch(indexes[index_idx], index_multikey, *bounds, filter_doc,
                               filter.value(), docs[doc_idx], doc_keys);
        if (lost.has_value()) {
          ++failures;
          ADD_FAILURE() << *lost;
        }
      }
    }
  }
  EXPECT_GT(bounded_filters, 1000);
  EXPECT_GT(checked_matches, 5000);
}

}  // namespace
}  // namespace quarry::exec
