// Greedy descent and the beam search on one level of the graph.
#include "vector/beam_search.h"

#include <algorithm>
#include <queue>
#include <span>

namespace quarry::vector {
namespace {

constexpr std::size_t kCacheLine = 64;
// How much of each code to prefetch: all of it up to 2 KB (512 float32 dimensions). Measured
// with 384 float32 dimensions, whole codes searched faster than their first 8, 4 or 1 lines.
constexpr std::size_t kPrefetchLines = 32;

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
  std::vector<NodeId> fresh;
  const std::size_t prefetch_bytes =
      std::min(graph.codec().code_bytes(), kPrefetchLines * kCacheLine);
  if (accepted(entry)) results.push(start);

  while (!to_explore.empty()) {
    Candidate nearest = to_explore.top();
    // Until ef results are found there is no bound: rejected nodes must not end the walk
    // (as Lucene and hnswlib do with deletions and filters).
    if (results.size() >= ef && nearest.distance > results.top().distance) break;
    to_explore.pop();
    // Most of a search's time is waiting for memory: the codes of all the unvisited neighbours
    // start loading together, before the first distance needs one.
    fresh.clear();
    for (NodeId neighbor : graph.Neighbors(nearest.node, level)) {
      if (visited.TestAndMark(neighbor)) continue;
      fresh.push_back(neighbor);
      const char* code = reinterpret_cast<const char*>(graph.CodeOf(neighbor));
      for (std::size_t line = 0; line < prefetch_bytes; line += kCacheLine) {
        __builtin_prefetch(code + line);
      }
    }
    for (const NodeId neighbor : fresh) {
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
