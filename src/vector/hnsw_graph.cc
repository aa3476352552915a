// hnswlib behind HnswGraph: the only file that includes it. Its headers define functions and
// variables at namespace scope, not inline; renamed here (its namespace, and the CPU-feature
// functions it puts in the global one), so another hnswlib user in the same program (the
// benchmark's baseline) does not define them twice.
#include "vector/hnsw_graph.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#define hnswlib quarry_hnswlib
#define cpuid quarry_hnswlib_cpuid
#define xgetbv quarry_hnswlib_xgetbv
#define AVXCapable quarry_hnswlib_AVXCapable
#define AVX512Capable quarry_hnswlib_AVX512Capable
#include <hnswlib/hnswlib.h>
#undef cpuid
#undef xgetbv
#undef AVXCapable
#undef AVX512Capable

namespace quarry::vector {
namespace {

constexpr std::size_t kInitialCapacity = 256;  // nodes
constexpr std::uint32_t kMaxLevel = 64;        // a level drawn with M >= 2 stays far below

// hnswlib's view of a VectorCodec: the code size and the codec's distance.
class CodecSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit CodecSpace(const VectorCodec* codec) : codec_(codec) {}
  std::size_t get_data_size() override { return codec_->code_bytes(); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return codec_->distance_fn(); }
  void* get_dist_func_param() override { return const_cast<VectorCodec*>(codec_); }

 private:
  const VectorCodec* codec_;
};

// The bytes of a node's upper link lists, with room for the one link hnswlib's search reads past
// the last list.
std::size_t UpperListBytes(const hnswlib::HierarchicalNSW<float>& index, int levels) {
  return index.size_links_per_element_ * static_cast<std::size_t>(levels) +
         sizeof(hnswlib::tableint);
}

std::uint16_t ListCount(const char* list) {
  std::uint16_t count;
  std::memcpy(&count, list, sizeof count);
  return count;
}

}  // namespace

struct HnswGraph::Hnsw {
  Hnsw(const VectorCodec* codec, const GraphParams& params, std::size_t capacity)
      : space(codec), index(&space, capacity, params.max_edges, params.num_edge_candidates) {
    FitUpdateLocks();
  }
  // hnswlib makes 65536 update locks up front (2.6 MB per graph) but locks only ids below its
  // capacity: a small graph keeps as many as it can use.
  void FitUpdateLocks() {
    std::vector<std::mutex>(
        std::min<std::size_t>(index.max_elements_,
                              hnswlib::HierarchicalNSW<float>::max_update_element_locks))
        .swap(index.link_list_update_locks_);
  }

  CodecSpace space;
  hnswlib::HierarchicalNSW<float> index;
};

HnswGraph::HnswGraph(const VectorCodec& codec, GraphParams params)
    : codec_(codec),
      // hnswlib draws levels with 1 / ln(M): M = 1 would put every node infinitely high.
      params_{std::max<std::size_t>(params.max_edges, 2), params.num_edge_candidates},
      hnsw_(std::make_unique<Hnsw>(&codec_, params_, kInitialCapacity)) {
  Refresh();
}

HnswGraph::~HnswGraph() = default;

void HnswGraph::Refresh() {
  const hnswlib::HierarchicalNSW<float>& index = hnsw_->index;
  view_ = View{.node_count = index.cur_element_count,
               .entry_point = index.enterpoint_node_,
               .top_level = index.maxlevel_,
               .level0 = index.data_level0_memory_,
               .node_bytes = index.size_data_per_element_,
               .code_offset = index.offsetData_,
               .upper = index.linkLists_,
               .upper_bytes = index.size_links_per_element_,
               .levels = index.element_levels_.data()};
}

NodeId HnswGraph::Add(const std::uint8_t* code) {
  hnswlib::HierarchicalNSW<float>& index = hnsw_->index;
  if (index.cur_element_count == index.max_elements_) {
    index.resizeIndex(2 * index.max_elements_);
    hnsw_->FitUpdateLocks();
  }
  const auto node = static_cast<NodeId>(index.cur_element_count);
  // hnswlib's label is the node itself. VectorIndex maps its own labels, and a label hnswlib
  // already knew would make addPoint relink that node in place, so its map is left empty.
  index.addPoint(code, node);
  index.label_lookup_.erase(node);
  if (index.element_levels_[node] > 0) {
    // hnswlib's search prefetches the neighbour after the last one, reading one link past a
    // full upper list; the block it allocated has a byte to spare, not a link. It never reads
    // a node's lists while inserting that node, so they are widened before anything can.
    char*& upper = index.linkLists_[node];
    upper =
        static_cast<char*>(std::realloc(upper, UpperListBytes(index, index.element_levels_[node])));
    if (upper == nullptr) std::abort();  // out of memory, as anywhere else
  }
  Refresh();
  return node;
}

void HnswGraph::MarkDeleted(NodeId node) {
  if (!hnsw_->index.isMarkedDeleted(node)) hnsw_->index.markDeletedInternal(node);
}

void HnswGraph::AppendTo(SnapshotWriter& out) const {
  out.U64(view_.node_count);
  out.U32(view_.entry_point);
  out.U32(static_cast<std::uint32_t>(view_.top_level + 1));
  out.Bytes(std::string_view(view_.level0, view_.node_count * view_.node_bytes));
  for (NodeId node = 0; node < view_.node_count; ++node) {
    const int level = LevelOf(node);
    out.U32(static_cast<std::uint32_t>(level));
    out.Bytes(level == 0 ? std::string_view()
                         : std::string_view(view_.upper[node],
                                            static_cast<std::size_t>(level) * view_.upper_bytes));
  }
}

bool HnswGraph::ReadFrom(SnapshotReader& in) {
  std::uint64_t nodes;
  std::uint32_t entry, top_plus_one;
  std::string_view level0;
  if (!in.U64(&nodes) || !in.U32(&entry) || !in.U32(&top_plus_one) || !in.Bytes(&level0) ||
      nodes > UINT32_MAX || level0.size() != nodes * view_.node_bytes) {
    return false;
  }
  std::vector<int> levels(nodes);
  std::vector<std::string_view> upper(nodes);
  for (std::size_t node = 0; node < nodes; ++node) {
    std::uint32_t level;
    if (!in.U32(&level) || level > kMaxLevel || !in.Bytes(&upper[node]) ||
        upper[node].size() != level * view_.upper_bytes) {
      return false;
    }
    levels[node] = static_cast<int>(level);
  }
  // Every link must lead to a node that has the level it is on: a search follows it blindly.
  const std::size_t max_links_level0 = 2 * params_.max_edges;
  for (std::size_t node = 0; node < nodes; ++node) {
    for (int level = 0; level <= levels[node]; ++level) {
      const char* list =
          level == 0 ? level0.data() + node * view_.node_bytes
                     : upper[node].data() + static_cast<std::size_t>(level - 1) * view_.upper_bytes;
      const std::uint16_t count = ListCount(list);
      if (count > (level == 0 ? max_links_level0 : params_.max_edges)) return false;
      for (std::uint16_t i = 0; i < count; ++i) {
        NodeId neighbor;
        std::memcpy(&neighbor, list + sizeof(NodeId) * (1 + i), sizeof neighbor);
        if (neighbor >= nodes || levels[neighbor] < level) return false;
      }
    }
  }
  const int top_level = static_cast<int>(top_plus_one) - 1;
  if (nodes == 0 ? top_level != -1 : (entry >= nodes || levels[entry] != top_level)) {
    return false;
  }

  std::size_t capacity = kInitialCapacity;
  while (capacity < nodes) capacity *= 2;
  auto hnsw = std::make_unique<Hnsw>(&codec_, params_, capacity);
  hnswlib::HierarchicalNSW<float>& index = hnsw->index;
  std::memcpy(index.data_level0_memory_, level0.data(), level0.size());
  for (std::size_t node = 0; node < nodes; ++node) {
    index.element_levels_[node] = levels[node];
    if (levels[node] == 0) continue;
    index.linkLists_[node] = static_cast<char*>(std::malloc(UpperListBytes(index, levels[node])));
    if (index.linkLists_[node] == nullptr) std::abort();  // out of memory, as anywhere else
    std::memcpy(index.linkLists_[node], upper[node].data(), upper[node].size());
  }
  index.cur_element_count = nodes;
  index.enterpoint_node_ = nodes == 0 ? static_cast<hnswlib::tableint>(-1) : entry;
  index.maxlevel_ = top_level;
  index.num_deleted_ = 0;
  for (NodeId node = 0; node < nodes; ++node) index.num_deleted_ += index.isMarkedDeleted(node);
  hnsw_ = std::move(hnsw);
  Refresh();
  return true;
}

}  // namespace quarry::vector
