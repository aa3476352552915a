// A hierarchical navigable small-world graph (Malkov & Yashunin, 2016): hnswlib's
// HierarchicalNSW, which builds and stores it, over the codes of a VectorCodec, whose distances
// it calls through a custom hnswlib space. Searches do not go through hnswlib: they read its
// storage here (each node's level, its link lists, its code) and walk it with beam_search.h,
// which adds what hnswlib's search lacks (a per-query beam, a filter, a distance budget). It
// knows geometry only; labels and tombstones belong to VectorIndex.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "vector/snapshot_bytes.h"
#include "vector/vector_codec.h"

namespace quarry::vector {

using NodeId = std::uint32_t;

struct GraphParams {
  std::size_t max_edges = 16;             // M: neighbours per node above level 0 (2M on it)
  std::size_t num_edge_candidates = 100;  // efConstruction: the beam when linking a new node
};

// Not thread-safe: VectorIndex serializes Add and Remove against readers.
class HnswGraph {
 public:
  HnswGraph(const VectorCodec& codec, GraphParams params);
  ~HnswGraph();
  HnswGraph(const HnswGraph&) = delete;
  HnswGraph& operator=(const HnswGraph&) = delete;

  // Adds the node of `code` (codec().code_bytes()) as node node_count() and links it. Room
  // grows by doubling.
  NodeId Add(const std::uint8_t* code);
  // Marks `node` deleted: it stays a waypoint, and later nodes are not linked to it.
  void MarkDeleted(NodeId node);

  const VectorCodec& codec() const { return codec_; }
  const GraphParams& params() const { return params_; }
  std::size_t node_count() const { return view_.node_count; }
  bool empty() const { return view_.node_count == 0; }
  NodeId entry_point() const { return view_.entry_point; }  // REQUIRES: !empty()
  int top_level() const { return view_.top_level; }
  int LevelOf(NodeId node) const { return view_.levels[node]; }
  const std::uint8_t* CodeOf(NodeId node) const {
    return reinterpret_cast<const std::uint8_t*>(view_.level0 + node * view_.node_bytes +
                                                 view_.code_offset);
  }
  // REQUIRES: level <= LevelOf(node). hnswlib's list: a 16-bit count, then the neighbours.
  std::span<const NodeId> Neighbors(NodeId node, int level) const {
    const char* list =
        level == 0 ? view_.level0 + node * view_.node_bytes
                   : view_.upper[node] + static_cast<std::size_t>(level - 1) * view_.upper_bytes;
    std::uint16_t count;
    std::memcpy(&count, list, sizeof count);
    return {reinterpret_cast<const NodeId*>(list) + 1, count};
  }
  float DistanceTo(const void* query_code, NodeId node) const {
    return codec_.Distance(query_code, CodeOf(node));
  }

  // The graph as snapshot bytes (snapshot_bytes.h): hnswlib's level-0 block and upper link
  // lists as it lays them out. ReadFrom fills an empty graph of the same codec and params; it
  // is false, and leaves the graph empty, for bytes that are no such graph.
  void AppendTo(SnapshotWriter& out) const;
  bool ReadFrom(SnapshotReader& in);

 private:
  struct Hnsw;
  // Where hnswlib keeps what a search reads; refreshed after every change.
  struct View {
    std::size_t node_count = 0;
    NodeId entry_point = 0;
    int top_level = -1;
    const char* level0 = nullptr;  // per node: links, then code, then hnswlib's label
    std::size_t node_bytes = 0;
    std::size_t code_offset = 0;
    char* const* upper = nullptr;  // per node: links of levels 1..level
    std::size_t upper_bytes = 0;
    const int* levels = nullptr;
  };
  void Refresh();

  const VectorCodec codec_;  // hnswlib's space points at it
  GraphParams params_;
  std::unique_ptr<Hnsw> hnsw_;
  View view_;
};

}  // namespace quarry::vector
