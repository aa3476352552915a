// The similarity functions of Atlas Vector Search indexes, and the 0..1 scores they give, as
// Atlas (Lucene) computes them.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace quarry::vector {

enum class Similarity { kEuclidean, kCosine, kDotProduct };

// "euclidean", "cosine" or "dotProduct" (the index definition's spelling); nullopt otherwise.
std::optional<Similarity> ParseSimilarity(std::string_view name);
std::string_view SimilarityName(Similarity similarity);

// How far apart two stored vectors are for the graph: smaller is nearer. Squared L2 for
// euclidean; the negated dot product for cosine (whose vectors are stored normalized) and
// dotProduct. REQUIRES a.size() == b.size().
float Distance(Similarity similarity, std::span<const float> a, std::span<const float> b);

// The score of a hit at `distance` (as Distance computes it):
//   euclidean   1 / (1 + d²), d the Euclidean distance;
//   cosine      (1 + cos) / 2;
//   dotProduct  (1 + dot) / 2, which stays in 0..1 only for normalized vectors.
double ScoreOf(Similarity similarity, float distance);

}  // namespace quarry::vector
