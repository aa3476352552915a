// Building the graph: a new node draws its level, descends greedily to it, and is linked on
// each level below to the neighbours the selection heuristic keeps.
#include "vector/hnsw_graph.h"

#include <algorithm>
#include <cmath>

#include "vector/beam_search.h"

namespace quarry::vector {
namespace {

// The paper's heuristic (its Algorithm 4, as hnswlib applies it): walking the candidates nearest
// first, keep one only if it is nearer to the base than to every neighbour kept so far. Edges
// then point in diverse directions, which keeps clusters connected to each other.
std::vector<NodeId> SelectNeighbors(const HnswGraph& graph, std::vector<Candidate> candidates,
                                    std::size_t max_count) {
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.distance < b.distance; });
  std::vector<NodeId> kept;
  kept.reserve(max_count);
  for (const Candidate& candidate : candidates) {
    if (kept.size() >= max_count) break;
    std::span<const float> vector = graph.VectorOf(candidate.node);
    bool diverse = std::none_of(kept.begin(), kept.end(), [&](NodeId other) {
      return graph.DistanceTo(vector, other) < candidate.distance;
    });
    if (diverse) kept.push_back(candidate.node);
  }
  return kept;
}

}  // namespace

HnswGraph::HnswGraph(GraphParams params, std::uint64_t seed)
    : params_(params),
      rng_(seed),
      level_scale_(1.0 /
                   std::log(static_cast<double>(std::max<std::size_t>(params.max_edges, 2)))) {}

int HnswGraph::DrawLevel() {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  double draw = uniform(rng_);
  if (draw <= 0.0) draw = 1e-300;  // log(0) would be -inf
  return static_cast<int>(-std::log(draw) * level_scale_);
}

std::size_t HnswGraph::MaxNeighbors(int level) const {
  return level == 0 ? 2 * params_.max_edges : params_.max_edges;
}

NodeId HnswGraph::Add(std::span<const float> vector) {
  const NodeId node = static_cast<NodeId>(levels_.size());
  const int level = DrawLevel();
  vectors_.insert(vectors_.end(), vector.begin(), vector.end());
  levels_.push_back(level);
  links_.emplace_back(static_cast<std::size_t>(level) + 1);
  if (top_level_ < 0) {
    entry_point_ = node;
    top_level_ = level;
    return node;
  }

  std::span<const float> query = VectorOf(node);
  NodeId entry = GreedyDescent(*this, query, level);
  for (int layer = std::min(level, top_level_); layer >= 0; --layer) {
    visited_.Reset(node_count());
    visited_.TestAndMark(node);  // never its own neighbour
    std::vector<Candidate> nearest =
        BeamSearch(*this, query, entry, layer, params_.num_edge_candidates, nullptr, visited_)
            .value();
    if (nearest.empty()) continue;
    entry = nearest.front().node;
    std::vector<NodeId> neighbors = SelectNeighbors(*this, std::move(nearest), params_.max_edges);
    for (NodeId neighbor : neighbors) LinkBack(neighbor, node, layer);
    links_[node][static_cast<std::size_t>(layer)] = std::move(neighbors);
  }
  if (level > top_level_) {
    entry_point_ = node;
    top_level_ = level;
  }
  return node;
}

void HnswGraph::LinkBack(NodeId neighbor, NodeId node, int level) {
  std::vector<NodeId>& list = links_[neighbor][static_cast<std::size_t>(level)];
  list.push_back(node);
  if (list.size() <= MaxNeighbors(level)) return;
  std::span<const float> base = VectorOf(neighbor);
  std::vector<Candidate> candidates;
  candidates.reserve(list.size());
  for (NodeId other : list) candidates.push_back({DistanceTo(base, other), other});
  list = SelectNeighbors(*this, std::move(candidates), MaxNeighbors(level));
}

void HnswGraph::AppendTo(SnapshotWriter& out) const {
  out.Floats(vectors_);
  out.U64(levels_.size());
  for (std::size_t node = 0; node < levels_.size(); ++node) {
    out.U32(static_cast<std::uint32_t>(levels_[node]));
    for (const std::vector<NodeId>& neighbors : links_[node]) {
      out.U32(static_cast<std::uint32_t>(neighbors.size()));
      for (NodeId neighbor : neighbors) out.U32(neighbor);
    }
  }
  out.U32(entry_point_);
  out.U32(static_cast<std::uint32_t>(top_level_ + 1));
}

bool HnswGraph::ReadFrom(SnapshotReader& in) {
  std::vector<float> vectors;
  std::uint64_t nodes;
  if (!in.Floats(&vectors) || !in.U64(&nodes) || params_.dimensions == 0 ||
      vectors.size() != nodes * params_.dimensions) {
    return false;
  }
  std::vector<int> levels(nodes);
  std::vector<std::vector<std::vector<NodeId>>> links(nodes);
  for (std::size_t node = 0; node < nodes; ++node) {
    std::uint32_t level;
    if (!in.U32(&level) || level > 64) return false;
    levels[node] = static_cast<int>(level);
    links[node].resize(level + 1);
    for (std::vector<NodeId>& neighbors : links[node]) {
      std::uint32_t count;
      if (!in.U32(&count) || count > nodes) return false;
      neighbors.resize(count);
      for (NodeId& neighbor : neighbors) {
        if (!in.U32(&neighbor) || neighbor >= nodes) return false;
      }
    }
  }
  std::uint32_t entry, top_plus_one;
  if (!in.U32(&entry) || !in.U32(&top_plus_one)) return false;
  if (nodes > 0 && (entry >= nodes || static_cast<int>(top_plus_one) - 1 != levels[entry])) {
    return false;
  }
  vectors_ = std::move(vectors);
  levels_ = std::move(levels);
  links_ = std::move(links);
  entry_point_ = entry;
  top_level_ = static_cast<int>(top_plus_one) - 1;
  return true;
}

}  // namespace quarry::vector
