// Similarity names as index definitions spell them, and Atlas's 0..1 scores on hand-computed
// pairs.
#include "vector/similarity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vector/vector_index.h"

namespace quarry::vector {
namespace {

TEST(SimilarityTest, ParsesAtlasNamesOnly) {
  EXPECT_EQ(ParseSimilarity("euclidean"), Similarity::kEuclidean);
  EXPECT_EQ(ParseSimilarity("cosine"), Similarity::kCosine);
  EXPECT_EQ(ParseSimilarity("dotProduct"), Similarity::kDotProduct);
  EXPECT_EQ(ParseSimilarity("dotproduct"), std::nullopt);
  EXPECT_EQ(ParseSimilarity("Cosine"), std::nullopt);
  EXPECT_EQ(ParseSimilarity(""), std::nullopt);
  for (Similarity similarity :
       {Similarity::kEuclidean, Similarity::kCosine, Similarity::kDotProduct}) {
    EXPECT_EQ(ParseSimilarity(SimilarityName(similarity)), similarity);
  }
}

// The score the index gives `stored` for `query`, by exact search.
double IndexScore(Similarity similarity, std::vector<float> stored, std::vector<float> query) {
  VectorIndex index({.dimensions = stored.size(), .similarity = similarity});
  EXPECT_TRUE(index.Upsert(7, stored));
  auto hits = index.Search(query, 1, 10, nullptr, /*exact=*/true);
  EXPECT_TRUE(hits.ok());
  EXPECT_EQ(hits.value().size(), 1u);
  return hits.value().front().score;
}

TEST(SimilarityTest, EuclideanScoreIsOneOverOnePlusSquaredDistance) {
  EXPECT_DOUBLE_EQ(IndexScore(Similarity::kEuclidean, {0, 0}, {3, 4}), 1.0 / 26.0);
  EXPECT_DOUBLE_EQ(IndexScore(Similarity::kEuclidean, {1, 1}, {1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(IndexScore(Similarity::kEuclidean, {1, 2}, {2, 2}), 0.5);
}

TEST(SimilarityTest, CosineScoreIsOnePlusCosineOverTwo) {
  EXPECT_NEAR(IndexScore(Similarity::kCosine, {1, 0}, {0, 5}), 0.5, 1e-7);
  EXPECT_NEAR(IndexScore(Similarity::kCosine, {2, 0}, {-3, 0}), 0.0, 1e-7);
  EXPECT_NEAR(IndexScore(Similarity::kCosine, {3, 0}, {4, 4}), (1 + 1 / std::sqrt(2.0)) / 2, 1e-7);
}

TEST(SimilarityTest, DotProductScoreIsOnePlusDotOverTwo) {
  EXPECT_NEAR(IndexScore(Similarity::kDotProduct, {0.6f, 0.8f}, {0.8f, 0.6f}), 0.98, 1e-7);
  EXPECT_NEAR(IndexScore(Similarity::kDotProduct, {1, 0}, {-1, 0}), 0.0, 1e-7);
  // Not normalized: nothing is clamped.
  EXPECT_NEAR(IndexScore(Similarity::kDotProduct, {2, 0}, {3, 0}), 3.5, 1e-7);
}

}  // namespace
}  // namespace quarry::vector
