// Similarity names, graph distances and Atlas's scores.
#include "vector/similarity.h"

#include "vector/distance_kernels.h"

namespace quarry::vector {

std::optional<Similarity> ParseSimilarity(std::string_view name) {
  if (name == "euclidean") return Similarity::kEuclidean;
  if (name == "cosine") return Similarity::kCosine;
  if (name == "dotProduct") return Similarity::kDotProduct;
  return std::nullopt;
}

std::string_view SimilarityName(Similarity similarity) {
  switch (similarity) {
    case Similarity::kEuclidean:
      return "euclidean";
    case Similarity::kCosine:
      return "cosine";
    case Similarity::kDotProduct:
      return "dotProduct";
  }
  return "";
}

float Distance(Similarity similarity, std::span<const float> a, std::span<const float> b) {
  if (similarity == Similarity::kEuclidean) return SquaredL2(a, b);
  return -DotProduct(a, b);
}

double ScoreOf(Similarity similarity, float distance) {
  // Lucene's VectorSimilarityFunction: EUCLIDEAN 1 / (1 + squareDistance), COSINE and
  // DOT_PRODUCT (1 + dot) / 2.
  if (similarity == Similarity::kEuclidean) return 1.0 / (1.0 + static_cast<double>(distance));
  return (1.0 - static_cast<double>(distance)) / 2.0;
}

}  // namespace quarry::vector
