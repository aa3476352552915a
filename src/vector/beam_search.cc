// Greedy descent and the beam search on one level of the graph.
#include "vector/beam_search.h"

#include <algorithm>
#include <queue>
#include <span>

namespace quarry::vector {
namespace {

struct Nearer {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.distance > b.distance;  // priority_queue keeps the nearest on top
  }
};
struct Farther {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.distance < b.distance;  // priority_queue keeps the farthest on top
  }
};

}  // namespace

NodeId GreedyDescent(const HnswGraph& graph, const void* query, int stop_level) {
  NodeId current = graph.entry_point();
  float current_distance = graph.DistanceTo(query, current);
  for (int level = graph.top_level(); level > stop_level; --level) {
    bool moved = true;
    while (moved) {
      moved = false;
      for (NodeId neighbor : graph.Neighbors(current, level)) {
        float distance = graph.DistanceTo(query, neighbor);
        if (distance < current_distance) {
          current_distance = distance;
          current = neighbor;
          moved = true;
        }
      }
    }
  }
  return current;
}

std::optional<std::vector<Candidate>> BeamSearch(const HnswGraph& graph, const void* query,
                                                 NodeId entry, int level, std::size_t ef,
                                                 const AcceptNode* accept, VisitedSet& visited,
                                                 std::size_t max_distances) {
  ef = std::max<std::size_t>(ef, 1);  // the loop compares against the ef-th result
  auto accepted = [accept](NodeId node) { return accept == nullptr || (*accept)(node); };
  std::priority_queue<Candidate, std::vector<Candidate>, Nearer> to_explore;
  std::priority_queue<Candidate, std::vector<Candidate>, Farther> results;

  visited.TestAndMark(entry);
  Candidate start{graph.DistanceTo(query, entry), entry};
  std::size_t distances = 1;
  to_explore.push(start);
  if (accepted(entry)) results.push(start);

  while (!to_explore.empty()) {
    Candidate nearest = to_explore.top();
    // Until ef results are found there is no bound: rejected nodes must not end the walk
    // (as Lucene and hnswlib do with deletions and filters).
    if (results.size() >= ef && nearest.distance > results.top().distance) break;
    to_explore.pop();
    const std::span<const NodeId> neighbors = graph.Neighbors(nearest.node, level);
    for (std::size_t i = 0; i < neighbors.size(); ++i) {
      const NodeId neighbor = neighbors[i];
      // The next neighbour's code loads while this one's distance is computed (as hnswlib
      // prefetches): most of a search's time is waiting for memory.
      if (i + 1 < neighbors.size()) __builtin_prefetch(graph.CodeOf(neighbors[i + 1]));
      if (visited.TestAndMark(neighbor)) continue;
      if (++distances > max_distances) return std::nullopt;
      float distance = graph.DistanceTo(query, neighbor);
      if (results.size() >= ef && distance >= results.top().distance) continue;
      to_explore.push({distance, neighbor});
      if (accepted(neighbor)) {
        results.push({distance, neighbor});
        if (results.size() > ef) results.pop();
      }
    }
  }

  std::vector<Candidate> nearest_first(results.size());
  for (std::size_t i = nearest_first.size(); i-- > 0;) {
    nearest_first[i] = results.top();
    results.pop();
  }
  return nearest_first;
}

}  // namespace quarry::vector
