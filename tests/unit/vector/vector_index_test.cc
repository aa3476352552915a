// VectorIndex's contract on small data: exact search equals brute force, updates and removals
// show at once, Compact changes no answer, and malformed vectors are refused.
#include "vector/vector_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <set>
#include <thread>

#include "vector_test_util.h"

namespace quarry::vector {
namespace {

using testing::BruteForce;
using testing::RandomVectors;
using testing::Vectors;

constexpr std::size_t kDims = 16;

std::vector<VectorIndex::Hit> Exact(const VectorIndex& index, const std::vector<float>& query,
                                    std::size_t limit,
                                    const VectorIndex::Filter* filter = nullptr) {
  auto hits = index.Search(query, limit, limit, filter, /*exact=*/true);
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits.value() : std::vector<VectorIndex::Hit>();
}

void Fill(VectorIndex& index, const Vectors& vectors) {
  for (std::size_t label = 0; label < vectors.size(); ++label) {
    ASSERT_TRUE(index.Upsert(label, vectors[label]));
  }
}

void ExpectSameHits(const std::vector<VectorIndex::Hit>& found,
                    const std::vector<VectorIndex::Hit>& expected) {
  ASSERT_EQ(found.size(), expected.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    EXPECT_EQ(found[i].label, expected[i].label) << "rank " << i;
    EXPECT_NEAR(found[i].score, expected[i].score, 1e-5) << "rank " << i;
  }
}

class VectorIndexSimilarityTest : public ::testing::TestWithParam<Similarity> {};

TEST_P(VectorIndexSimilarityTest, ExactSearchEqualsBruteForce) {
  Similarity similarity = GetParam();
  Vectors vectors = RandomVectors(500, kDims, 11);
  if (similarity == Similarity::kDotProduct) {  // Atlas expects unit vectors for dotProduct
    for (auto& vector : vectors) {
      double norm = 0;
      for (float v : vector) norm += double{v} * v;
      for (float& v : vector) v = static_cast<float>(v / std::sqrt(norm));
    }
  }
  VectorIndex index({.dimensions = kDims, .similarity = similarity});
  Fill(index, vectors);
  auto all = [](std::uint64_t) { return true; };
  for (const auto& query : RandomVectors(20, kDims, 12)) {
    ExpectSameHits(Exact(index, query, 10), BruteForce(similarity, vectors, query, 10, all));
  }
  // More than there are: every vector once.
  EXPECT_EQ(Exact(index, vectors[0], 1000).size(), 500u);
}

INSTANTIATE_TEST_SUITE_P(AllSimilarities, VectorIndexSimilarityTest,
                         ::testing::Values(Similarity::kEuclidean, Similarity::kCosine,
                                           Similarity::kDotProduct),
                         [](const auto& info) { return std::string(SimilarityName(info.param)); });

TEST(VectorIndexTest, ExactSearchAppliesTheFilter) {
  Vectors vectors = RandomVectors(300, kDims, 21);
  VectorIndex index({.dimensions = kDims, .similarity = Similarity::kEuclidean});
  Fill(index, vectors);
  auto odd = [](std::uint64_t label) { return label % 2 == 1; };
  VectorIndex::Filter filter = odd;
  ExpectSameHits(Exact(index, vectors[4], 5, &filter),
                 BruteForce(Similarity::kEuclidean, vectors, vectors[4], 5, odd));
}

TEST(VectorIndexTest, FilterAdmittingFewerThanLimitReturnsAllOfThem) {
  Vectors vectors = RandomVectors(1000, kDims, 22);
  VectorIndex index({.dimensions = kDims, .similarity = Similarity::kEuclidean});
  Fill(index, vectors);
  VectorIndex::Filter filter = [](std::uint64_t label) { return label == 5 || label == 700; };
  for (bool exact : {true, false}) {
    auto hits = index.Search(vectors[0], 10, 10, &filter, exact);
    ASSERT_TRUE(hits.ok());
    ASSERT_EQ(hits.value().size(), 2u);
    EXPECT_TRUE(filter(hits.value()[0].label) && filter(hits.value()[1].label));
  }
}

TEST(VectorIndexTest, UpsertOfAnExistingLabelMovesIt) {
  VectorIndex index({.dimensions = 2, .similarity = Similarity::kEuclidean});
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{0, 0}));
  ASSERT_TRUE(index.Upsert(2, std::vector<float>{10, 10}));
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{20, 20}));
  EXPECT_EQ(index.size(), 2u);
  auto hits = Exact(index, {19, 19}, 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].label, 1u);
  EXPECT_DOUBLE_EQ(hits[0].score, 1.0 / 3.0);
  EXPECT_EQ(hits[1].label, 2u);
  EXPECT_DOUBLE_EQ(index.TombstoneShare(), 1.0 / 3.0);  // the old node of label 1

  // The same vector again changes nothing, not even the graph.
  ASSERT_TRUE(index.Upsert(2, std::vector<float>{10, 10}));
  EXPECT_DOUBLE_EQ(index.TombstoneShare(), 1.0 / 3.0);
  EXPECT_EQ(index.size(), 2u);
}

TEST(VectorIndexTest, RemoveHidesTheLabelAtOnce) {
  Vectors vectors = RandomVectors(200, kDims, 31);
  VectorIndex index({.dimensions = kDims, .similarity = Similarity::kCosine});
  Fill(index, vectors);
  index.Remove(5);
  index.Remove(5);     // again: no-op
  index.Remove(9999);  // never there: no-op
  EXPECT_EQ(index.size(), 199u);
  // All of them (a scan), then the nearest few through the graph, which still walks through
  // the removed node but never returns it.
  for (auto [limit, exact] : {std::pair<std::size_t, bool>{200, true}, {200, false}, {20, false}}) {
    auto hits = index.Search(vectors[5], limit, limit, nullptr, exact);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(hits.value().size(), std::min<std::size_t>(limit, 199));
    for (const auto& hit : hits.value()) EXPECT_NE(hit.label, 5u);
  }
  // Removed from an index where it was the nearest of all to itself.
  ASSERT_TRUE(index.Upsert(5, vectors[5]));
  auto back = index.Search(vectors[5], 1, 20, nullptr, false);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().at(0).label, 5u);
}

TEST(VectorIndexTest, CompactKeepsAnswersAndDropsTombstones) {
  Vectors vectors = RandomVectors(400, kDims, 41);
  VectorIndex index({.dimensions = kDims, .similarity = Similarity::kEuclidean});
  Fill(index, vectors);
  for (std::uint64_t label = 0; label < 400; label += 3) index.Remove(label);
  for (std::uint64_t label = 1; label < 400; label += 7) {
    ASSERT_TRUE(index.Upsert(label, vectors[(label * 13) % 400]));
  }
  EXPECT_GT(index.TombstoneShare(), 0.25);
  Vectors queries = RandomVectors(10, kDims, 42);
  std::vector<std::vector<VectorIndex::Hit>> before;
  for (const auto& query : queries) before.push_back(Exact(index, query, 20));
  std::size_t size_before = index.size();

  index.Compact();
  EXPECT_EQ(index.TombstoneShare(), 0.0);
  EXPECT_EQ(index.size(), size_before);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    auto after = Exact(index, queries[i], 20);
    ASSERT_EQ(after.size(), before[i].size());
    for (std::size_t rank = 0; rank < after.size(); ++rank) {
      EXPECT_EQ(after[rank].label, before[i][rank].label);
      EXPECT_EQ(after[rank].score, before[i][rank].score);
    }
  }
  // The rebuilt graph still serves approximate searches and later writes.
  ASSERT_TRUE(index.Upsert(3, vectors[3]));
  auto hits = index.Search(vectors[3], 1, 50, nullptr, /*exact=*/false);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits.value().size(), 1u);
  EXPECT_EQ(hits.value()[0].label, 3u);
}

TEST(VectorIndexTest, RefusesMalformedVectors) {
  VectorIndex cosine({.dimensions = 3, .similarity = Similarity::kCosine});
  EXPECT_FALSE(cosine.Upsert(1, std::vector<float>{1, 2}));
  EXPECT_FALSE(cosine.Upsert(1, std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(cosine.Upsert(1, std::vector<float>{1, std::numeric_limits<float>::quiet_NaN(), 3}));
  EXPECT_FALSE(cosine.Upsert(1, std::vector<float>{std::numeric_limits<float>::infinity(), 0, 0}));
  EXPECT_FALSE(cosine.Upsert(1, std::vector<float>{0, 0, 0}));
  EXPECT_EQ(cosine.size(), 0u);

  // A refused update leaves the label's previous vector in place.
  ASSERT_TRUE(cosine.Upsert(1, std::vector<float>{1, 0, 0}));
  EXPECT_FALSE(cosine.Upsert(1, std::vector<float>{0, 0, 0}));
  auto hits = Exact(cosine, {1, 0, 0}, 5);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NEAR(hits[0].score, 1.0, 1e-7);

  // Zero vectors have a place under the other similarities.
  VectorIndex euclidean({.dimensions = 3, .similarity = Similarity::kEuclidean});
  EXPECT_TRUE(euclidean.Upsert(1, std::vector<float>{0, 0, 0}));
}

TEST(VectorIndexTest, RefusesQueriesOfTheWrongLengthWithBadValue) {
  VectorIndex index({.dimensions = 4, .similarity = Similarity::kDotProduct});
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{1, 0, 0, 0}));
  for (bool exact : {true, false}) {
    auto hits = index.Search(std::vector<float>{1, 0, 0}, 1, 10, nullptr, exact);
    ASSERT_FALSE(hits.ok());
    EXPECT_EQ(hits.status().code(), ErrorCode::kBadValue);
    EXPECT_EQ(hits.status().reason(), "queryVector has 3 dimensions but the index has 4");
  }
  auto nan = index.Search(std::vector<float>{std::numeric_limits<float>::quiet_NaN(), 0, 0, 0}, 1,
                          10, nullptr, false);
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.status().code(), ErrorCode::kBadValue);
}

TEST(VectorIndexTest, SmallestGraphParametersStillAnswerInFull) {
  Vectors vectors = RandomVectors(300, kDims, 71);
  VectorIndex index({.dimensions = kDims,
                     .similarity = Similarity::kEuclidean,
                     .max_edges = 1,
                     .num_edge_candidates = 0});
  Fill(index, vectors);
  auto hits = index.Search(vectors[9], 10, 10, nullptr, /*exact=*/false);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits.value().size(), 10u);
  // Ten distinct labels, best first (hnswlib's graph at two edges per node need not reach the
  // very nearest: Atlas allows no fewer than 16).
  std::set<std::uint64_t> labels;
  for (const auto& hit : hits.value()) labels.insert(hit.label);
  EXPECT_EQ(labels.size(), 10u);
  for (std::size_t i = 1; i < 10; ++i) {
    EXPECT_GE(hits.value()[i - 1].score, hits.value()[i].score);
  }
}

TEST(VectorIndexTest, EmptyIndexAndZeroLimitAnswerNothing) {
  VectorIndex index({.dimensions = 2, .similarity = Similarity::kEuclidean});
  auto empty = index.Search(std::vector<float>{1, 1}, 10, 100, nullptr, false);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().empty());
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{1, 1}));
  auto none = index.Search(std::vector<float>{1, 1}, 0, 100, nullptr, false);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.value().empty());
  EXPECT_EQ(index.TombstoneShare(), 0.0);
}

TEST(VectorIndexTest, SearchesRunConcurrentlyWithOneWriter) {
  Vectors vectors = RandomVectors(2000, kDims, 51);
  VectorIndex index({.dimensions = kDims, .similarity = Similarity::kCosine});
  Fill(index, vectors);
  std::atomic<bool> writing{true};
  std::atomic<int> failures{0};
  std::vector<std::thread> readers;
  for (int reader = 0; reader < 3; ++reader) {
    readers.emplace_back([&, reader] {
      Vectors queries = RandomVectors(50, kDims, 60 + reader);
      VectorIndex::Filter even = [](std::uint64_t label) { return label % 2 == 0; };
      for (std::size_t i = 0; writing || i < queries.size(); ++i) {
        auto hits = index.Search(queries[i % queries.size()], 10, 40, i % 2 ? &even : nullptr,
                                 /*exact=*/i % 3 == 0);
        bool sorted = hits.ok() && std::is_sorted(hits.value().begin(), hits.value().end(),
                                                  [](const auto& a, const auto& b) {
                                                    return a.score > b.score;
                                                  });
        if (!sorted || hits.value().size() != 10) ++failures;
        for (const auto& hit : hits.value()) failures += (i % 2 && hit.label % 2 != 0);
      }
    });
  }
  for (std::uint64_t round = 0; round < 300; ++round) {
    index.Remove(round);
    ASSERT_TRUE(index.Upsert(2000 + round, vectors[round]));
    if (round % 100 == 99) index.Compact();
  }
  writing = false;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(index.size(), 2000u);
  EXPECT_EQ(index.TombstoneShare(), 0.0);
}

}  // namespace
}  // namespace quarry::vector
