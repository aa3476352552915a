// The two walks of a query over an HnswGraph, given the query's code (the graph's codec).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "vector/hnsw_graph.h"
#include "vector/visited_set.h"

namespace quarry::vector {

struct Candidate {
  float distance;
  NodeId node;
};

// Greedy descent from the entry point through the levels above `stop_level`: on each level,
// moves to the nearest neighbour while one is nearer. Returns the node it ends on.
// REQUIRES: !graph.empty().
NodeId GreedyDescent(const HnswGraph& graph, const void* query, int stop_level);

// Which nodes may be results; nullptr accepts all.
using AcceptNode = std::function<bool(NodeId)>;

// Best-first search on `level` from `entry`, keeping the `ef` nearest accepted nodes. Every node
// is traversed, accepted or not (a node that is not a result can still lead to results), and
// the search stops once its nearest unexplored candidate is farther than the ef-th result.
// Returns the results nearest first, or nullopt once it has computed more than `max_distances`
// distances (the caller then prefers an exact scan). `visited` must be Reset for
// graph.node_count() nodes.
std::optional<std::vector<Candidate>> BeamSearch(const HnswGraph& graph, const void* query,
                                                 NodeId entry, int level, std::size_t ef,
                                                 const AcceptNode* accept, VisitedSet& visited,
                                                 std::size_t max_distances = SIZE_MAX);

}  // namespace quarry::vector
