// A hierarchical navigable small-world graph (Malkov & Yashunin, 2016) over float vectors: the
// vectors, each node's level and its neighbours on every level up to it. It knows geometry
// only; labels and tombstones belong to VectorIndex.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "vector/similarity.h"
#include "vector/snapshot_bytes.h"
#include "vector/visited_set.h"

namespace quarry::vector {

using NodeId = std::uint32_t;

struct GraphParams {
  std::size_t dimensions = 0;
  Similarity similarity = Similarity::kEuclidean;
  std::size_t max_edges = 16;             // M: neighbours per node above level 0 (2M on it)
  std::size_t num_edge_candidates = 100;  // efConstruction: the beam when linking a new node
};

// Not thread-safe: VectorIndex serializes Add against readers.
class HnswGraph {
 public:
  explicit HnswGraph(GraphParams params, std::uint64_t seed = 42);

  // Adds `vector` (REQUIRES: params().dimensions floats, normalized for cosine) as the next
  // node and links it. Storage grows by doubling.
  NodeId Add(std::span<const float> vector);

  const GraphParams& params() const { return params_; }
  std::size_t node_count() const { return levels_.size(); }
  bool empty() const { return levels_.empty(); }
  NodeId entry_point() const { return entry_point_; }  // REQUIRES: !empty()
  int top_level() const { return top_level_; }
  int LevelOf(NodeId node) const { return levels_[node]; }
  std::span<const float> VectorOf(NodeId node) const {
    return {vectors_.data() + static_cast<std::size_t>(node) * params_.dimensions,
            params_.dimensions};
  }
  // REQUIRES: level <= LevelOf(node).
  const std::vector<NodeId>& Neighbors(NodeId node, int level) const {
    return links_[node][static_cast<std::size_t>(level)];
  }
  float DistanceTo(std::span<const float> query, NodeId node) const {
    return Distance(params_.similarity, query, VectorOf(node));
  }

  // The graph as snapshot bytes (snapshot_bytes.h), and back into an empty graph of the same
  // params; ReadFrom is false, and leaves the graph empty, for bytes that are no such graph.
  void AppendTo(SnapshotWriter& out) const;
  bool ReadFrom(SnapshotReader& in);

 private:
  int DrawLevel();
  std::size_t MaxNeighbors(int level) const;
  // Links `node` to `neighbor` on `level`, pruning `neighbor`'s list if it grows too long.
  void LinkBack(NodeId neighbor, NodeId node, int level);

  GraphParams params_;
  std::mt19937_64 rng_;
  double level_scale_;
  std::vector<float> vectors_;                           // node-major, dimensions floats each
  std::vector<int> levels_;                              // per node
  std::vector<std::vector<std::vector<NodeId>>> links_;  // [node][level] -> neighbours
  NodeId entry_point_ = 0;
  int top_level_ = -1;
  VisitedSet visited_;  // for Add's searches
};

}  // namespace quarry::vector
