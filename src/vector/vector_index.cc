// VectorIndex: labels and tombstones over an HnswGraph, the full-precision vectors of a quantized
// index, and the choice between a graph search and an exact scan.
#include "vector/vector_index.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <queue>
#include <string>

#include "vector/beam_search.h"
#include "vector/hnsw_graph.h"
#include "vector/vector_store.h"

namespace quarry::vector {
namespace {

// Below this share of admitted vectors among the graph's nodes, a beam rarely reaches enough
// of them: scan them instead (Lucene likewise switches to an exact search for selective
// filters).
constexpr std::size_t kScanBelowOneIn = 20;    // 5%
constexpr std::size_t kAdmittedSample = 1024;  // nodes a filter's selectivity is estimated on
// The layout AppendTo writes; ReadFrom refuses any other.
constexpr std::uint32_t kIndexFormat = 2;

bool AllFinite(std::span<const float> values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

// The vector as the graph stores it: normalized for cosine, which then needs only the inner
// product. nullopt when it has no direction (all zeros) or normalizing leaves non-finite values.
std::optional<std::vector<float>> Stored(Similarity similarity, std::span<const float> vector) {
  std::vector<float> stored(vector.begin(), vector.end());
  if (similarity != Similarity::kCosine) return stored;
  double squared_norm = 0;
  for (float v : vector) squared_norm += static_cast<double>(v) * v;
  if (squared_norm == 0) return std::nullopt;
  double inverse_norm = 1.0 / std::sqrt(squared_norm);
  for (float& v : stored) v = static_cast<float>(v * inverse_norm);
  if (!AllFinite(stored)) return std::nullopt;
  return stored;
}

bool HigherFirst(const VectorIndex::Hit& a, const VectorIndex::Hit& b) {
  return a.score != b.score ? a.score > b.score : a.label < b.label;
}

// The best `limit` hits offered, highest first. The distance is far cheaper than the filter:
// the filter is asked only about a hit that would make the best so far.
class BestHits {
 public:
  BestHits(std::size_t limit, const VectorIndex::Filter* filter)
      : limit_(limit), filter_(filter), best_(HigherFirst) {}

  void Offer(const VectorIndex::Hit& hit) {
    if (best_.size() >= limit_ && !HigherFirst(hit, best_.top())) return;
    if (filter_ != nullptr && !(*filter_)(hit.label)) return;
    if (best_.size() >= limit_) best_.pop();
    best_.push(hit);
  }

  std::vector<VectorIndex::Hit> Take() && {
    std::vector<VectorIndex::Hit> hits(best_.size());
    for (std::size_t i = hits.size(); i-- > 0;) {
      hits[i] = best_.top();
      best_.pop();
    }
    return hits;
  }

 private:
  const std::size_t limit_;
  const VectorIndex::Filter* filter_;
  // The worst of the best so far on top, replaced by anything better.
  std::priority_queue<VectorIndex::Hit, std::vector<VectorIndex::Hit>, decltype(&HigherFirst)>
      best_;
};

}  // namespace

VectorIndex::VectorIndex(Options options) : options_(std::move(options)) {
  if (quantized()) {
    full_ = std::make_unique<VectorStore>(options_.dimensions, options_.vector_file_dir);
  }
  if (options_.quantization != Quantization::kScalar) graph_ = MakeGraph({});
}

std::unique_ptr<HnswGraph> VectorIndex::MakeGraph(ScalarRange range) const {
  return std::make_unique<HnswGraph>(
      VectorCodec(options_.dimensions, options_.similarity, options_.quantization, range),
      GraphParams{options_.max_edges, options_.num_edge_candidates});
}

std::span<const float> VectorIndex::VectorOf(std::uint32_t node) const {
  if (full_ != nullptr) return full_->At(node);
  return {reinterpret_cast<const float*>(graph_->CodeOf(node)), options_.dimensions};
}

void VectorIndex::AddNode(std::uint64_t label, std::span<const float> stored) {
  const auto node = static_cast<NodeId>(node_labels_.size());
  if (full_ != nullptr) full_->Append(stored);
  if (graph_ != nullptr) {
    if (quantized()) {
      graph_->Add(graph_->codec().Encode(stored).data());
    } else {
      graph_->Add(reinterpret_cast<const std::uint8_t*>(stored.data()));
    }
  }
  node_labels_.push_back(label);
  tombstoned_.push_back(false);
  node_of_label_[label] = node;
  TrainIfReady();
}

void VectorIndex::Tombstone(std::uint32_t node) {
  tombstoned_[node] = true;
  if (graph_ != nullptr) graph_->MarkDeleted(node);
}

void VectorIndex::TrainIfReady() {
  if (graph_ != nullptr || node_count() < kScalarTrainingVectors) return;
  const std::span<const float> all(full_->At(0).data(), node_count() * options_.dimensions);
  graph_ = MakeGraph(LearnScalarRange(all, options_.dimensions));
  for (NodeId node = 0; node < node_count(); ++node) {
    graph_->Add(graph_->codec().Encode(full_->At(node)).data());
    if (!IsLive(node)) graph_->MarkDeleted(node);
  }
}

VectorIndex::~VectorIndex() = default;

std::shared_lock<std::shared_mutex> VectorIndex::ReadLock() const {
  std::lock_guard<std::mutex> gate(writer_gate_);
  return std::shared_lock<std::shared_mutex>(mutex_);
}

std::unique_lock<std::shared_mutex> VectorIndex::WriteLock() {
  std::lock_guard<std::mutex> gate(writer_gate_);
  return std::unique_lock<std::shared_mutex>(mutex_);
}

bool VectorIndex::Upsert(std::uint64_t label, std::span<const float> vector) {
  if (vector.size() != options_.dimensions || !AllFinite(vector)) return false;
  std::optional<std::vector<float>> stored = Stored(options_.similarity, vector);
  if (!stored) return false;

  std::unique_lock lock = WriteLock();
  // An update adds a node and tombstones the old one: relinking a node in place would leave
  // its old neighbours pointing at a vector that has moved away.
  if (auto it = node_of_label_.find(label); it != node_of_label_.end()) {
    // Updates that leave the vector alone (most updates of a document) cost nothing.
    std::span<const float> current = VectorOf(it->second);
    if (std::equal(current.begin(), current.end(), stored->begin())) return true;
    Tombstone(it->second);
  }
  AddNode(label, *stored);
  return true;
}

void VectorIndex::Remove(std::uint64_t label) {
  std::unique_lock lock = WriteLock();
  auto it = node_of_label_.find(label);
  if (it == node_of_label_.end()) return;
  Tombstone(it->second);
  node_of_label_.erase(it);
}

std::size_t VectorIndex::size() const {
  std::shared_lock lock = ReadLock();
  return node_of_label_.size();
}

double VectorIndex::TombstoneShare() const {
  std::shared_lock lock = ReadLock();
  std::size_t nodes = node_count();
  if (nodes == 0) return 0;
  return static_cast<double>(nodes - node_of_label_.size()) / static_cast<double>(nodes);
}

void VectorIndex::Compact() {
  std::unique_lock lock = WriteLock();
  // A fresh index of the same options takes the live vectors, then this one takes its state.
  VectorIndex fresh(options_);
  for (NodeId node = 0; node < node_count(); ++node) {
    if (IsLive(node)) fresh.AddNode(node_labels_[node], VectorOf(node));
  }
  graph_ = std::move(fresh.graph_);
  full_ = std::move(fresh.full_);
  node_labels_ = std::move(fresh.node_labels_);
  tombstoned_ = std::move(fresh.tombstoned_);
  node_of_label_ = std::move(fresh.node_of_label_);
}

void VectorIndex::AppendTo(SnapshotWriter& out) const {
  std::shared_lock lock = ReadLock();
  out.U32(kIndexFormat);
  out.U32(static_cast<std::uint32_t>(options_.quantization));
  out.U64(node_count());
  for (std::size_t node = 0; node < node_count(); ++node) {
    out.U64(node_labels_[node]);
    out.U32(tombstoned_[node] ? 1 : 0);
  }
  if (full_ != nullptr) {
    out.Floats({full_->At(0).data(), node_count() * options_.dimensions});
  }
  out.U32(graph_ != nullptr ? 1 : 0);
  if (graph_ == nullptr) return;
  const ScalarRange& range = graph_->codec().range();
  const float bounds[] = {range.low, range.high};
  out.Floats(bounds);
  graph_->AppendTo(out);
}

std::unique_ptr<VectorIndex> VectorIndex::ReadFrom(Options options, SnapshotReader& in) {
  auto index = std::make_unique<VectorIndex>(std::move(options));
  std::uint32_t format, quantization, has_graph;
  std::uint64_t nodes;
  if (!in.U32(&format) || format != kIndexFormat || !in.U32(&quantization) ||
      quantization != static_cast<std::uint32_t>(index->options_.quantization) || !in.U64(&nodes) ||
      nodes > UINT32_MAX) {
    return nullptr;
  }
  for (std::size_t node = 0; node < nodes; ++node) {
    std::uint64_t label;
    std::uint32_t tombstoned;
    if (!in.U64(&label) || !in.U32(&tombstoned) || tombstoned > 1) return nullptr;
    index->node_labels_.push_back(label);
    index->tombstoned_.push_back(tombstoned == 1);
    if (tombstoned == 0) {
      auto [it, fresh] = index->node_of_label_.emplace(label, static_cast<NodeId>(node));
      if (!fresh) return nullptr;  // a label lives in one node at most
    }
  }
  if (index->full_ != nullptr) {
    std::vector<float> vectors;
    if (!in.Floats(&vectors) || vectors.size() != nodes * index->options_.dimensions) {
      return nullptr;
    }
    for (std::size_t node = 0; node < nodes; ++node) {
      index->full_->Append(
          {vectors.data() + node * index->options_.dimensions, index->options_.dimensions});
    }
  }
  std::vector<float> bounds;
  if (!in.U32(&has_graph) || has_graph > 1) return nullptr;
  if (has_graph == 0) {
    // Only a scalar index still learning its range has no graph.
    if (index->graph_ != nullptr || nodes >= kScalarTrainingVectors) return nullptr;
    return index;
  }
  if (!in.Floats(&bounds) || bounds.size() != 2 || !(bounds[1] > bounds[0])) return nullptr;
  index->graph_ = index->MakeGraph({bounds[0], bounds[1]});
  if (!index->graph_->ReadFrom(in) || index->graph_->node_count() != nodes) return nullptr;
  for (NodeId node = 0; node < nodes; ++node) {
    if (!index->IsLive(node)) index->graph_->MarkDeleted(node);
  }
  return index;
}

StatusWith<std::vector<VectorIndex::Hit>> VectorIndex::Search(
    std::span<const float> query, std::size_t limit, std::size_t num_candidates,
    const Filter* filter, bool exact, const std::vector<std::uint32_t>* candidates) const {
  if (query.size() != options_.dimensions) {
    return Status(ErrorCode::kBadValue, "queryVector has " + std::to_string(query.size()) +
                                            " dimensions but the index has " +
                                            std::to_string(options_.dimensions));
  }
  if (!AllFinite(query)) {
    return Status(ErrorCode::kBadValue, "queryVector must contain only finite numbers");
  }
  // A zero query has no direction under cosine: it is left as it is, and every cosine is 0.
  std::vector<float> prepared =
      Stored(options_.similarity, query).value_or(std::vector<float>(query.begin(), query.end()));

  std::shared_lock lock = ReadLock();
  if (limit == 0 || node_of_label_.empty()) return std::vector<Hit>();
  auto scan = [&] {
    return candidates != nullptr ? ScanLabels(prepared, limit, filter, *candidates)
                                 : ScanExact(prepared, limit, filter);
  };
  if (exact) return scan();

  const std::size_t ef = std::max(num_candidates, limit);
  // Few candidates: scanning them is cheaper than even estimating the filter's selectivity.
  if (candidates != nullptr &&
      (candidates->size() <= ef || candidates->size() * kScanBelowOneIn < node_count())) {
    return scan();
  }
  const std::size_t admitted =
      filter != nullptr ? EstimateAdmitted(*filter) : node_of_label_.size();
  if (graph_ == nullptr || admitted <= ef || admitted * kScanBelowOneIn < node_count()) {
    return scan();
  }
  // A graph search that computes more distances than a scan of the admitted vectors would is
  // worse than the scan (Lucene's visit limit for filtered kNN).
  std::optional<std::vector<Hit>> hits = SearchGraph(prepared, limit, ef, filter, admitted);
  // Fewer than `limit`: the graph may have missed matching vectors it cannot reach (rare,
  // after heavy pruning), or the estimate was high; the scan gives the exact answer.
  if (!hits || hits->size() < limit) return scan();
  return std::move(*hits);
}

std::size_t VectorIndex::MaxScannedCandidates(std::size_t num_candidates, std::size_t limit) const {
  std::shared_lock lock = ReadLock();
  return std::max(std::max(num_candidates, limit), node_count() / kScanBelowOneIn);
}

std::size_t VectorIndex::EstimateAdmitted(const Filter& filter) const {
  // The filter runs a matcher per label: a sample of evenly spaced nodes tells which way to
  // answer at a fraction of the cost of asking every node.
  const std::size_t nodes = node_count();
  const std::size_t step = std::max<std::size_t>(1, nodes / kAdmittedSample);
  std::size_t live = 0, admitted = 0;
  for (NodeId node = 0; node < nodes; node += static_cast<NodeId>(step)) {
    if (!IsLive(node)) continue;
    ++live;
    admitted += filter(node_labels_[node]);
  }
  if (live == 0) return 0;
  return (admitted * node_of_label_.size() + live - 1) / live;
}

std::vector<VectorIndex::Hit> VectorIndex::ScanExact(std::span<const float> query,
                                                     std::size_t limit,
                                                     const Filter* filter) const {
  BestHits best(limit, filter);
  for (NodeId node = 0; node < node_count(); ++node) {
    if (!IsLive(node)) continue;
    best.Offer({node_labels_[node], ScoreOf(options_.similarity,
                                            Distance(options_.similarity, query, VectorOf(node)))});
  }
  return std::move(best).Take();
}

std::vector<VectorIndex::Hit> VectorIndex::ScanLabels(
    std::span<const float> query, std::size_t limit, const Filter* filter,
    const std::vector<std::uint32_t>& labels) const {
  BestHits best(limit, filter);
  for (const std::uint32_t label : labels) {
    auto node = node_of_label_.find(label);
    if (node == node_of_label_.end() || !IsLive(node->second)) continue;
    best.Offer({label, ScoreOf(options_.similarity,
                               Distance(options_.similarity, query, VectorOf(node->second)))});
  }
  return std::move(best).Take();
}

std::optional<std::vector<VectorIndex::Hit>> VectorIndex::SearchGraph(
    std::span<const float> query, std::size_t limit, std::size_t ef, const Filter* filter,
    std::size_t max_distances) const {
  VisitedPool::Lease visited = visited_pool_.Borrow(graph_->node_count());
  AcceptNode accept = [this, filter](NodeId node) {
    return IsLive(node) && (filter == nullptr || (*filter)(node_labels_[node]));
  };
  std::vector<std::uint8_t> code;
  const void* query_code = query.data();
  if (quantized()) {
    code = graph_->codec().Encode(query);
    query_code = code.data();
  }
  NodeId entry = GreedyDescent(*graph_, query_code, 0);
  std::optional<std::vector<Candidate>> found =
      BeamSearch(*graph_, query_code, entry, 0, ef, &accept, *visited, max_distances);
  if (!found) return std::nullopt;
  std::vector<Hit> hits;
  hits.reserve(found->size());
  for (const Candidate& candidate : *found) {
    // A code's distance only ranks the candidates; the score is the full-precision one.
    const float distance = quantized()
                               ? Distance(options_.similarity, query, VectorOf(candidate.node))
                               : candidate.distance;
    hits.push_back({node_labels_[candidate.node], ScoreOf(options_.similarity, distance)});
  }
  std::sort(hits.begin(), hits.end(), HigherFirst);
  if (hits.size() > limit) hits.resize(limit);
  return hits;
}

}  // namespace quarry::vector
