// The in-memory vector index of one (search index, path): an HNSW graph over caller-labelled
// vectors, answering the nearest vectors to a query by the index's similarity, with Atlas's
// scores. It knows nothing of documents: the caller maps documents to labels. A quantized index
// builds and walks its graph on compact codes (vector_codec.h) and rescores what the walk found
// with the full-precision vectors, which it keeps in a file-backed mapping (vector_store.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "vector/similarity.h"
#include "vector/snapshot_bytes.h"
#include "vector/vector_codec.h"
#include "vector/visited_set.h"

namespace quarry::vector {

class HnswGraph;
class VectorStore;

// Thread-safe: any number of concurrent Search calls, and one writer (Upsert, Remove, Compact)
// at a time, which waits for the searches and makes them wait.
class VectorIndex {
 public:
  struct Options {
    std::size_t dimensions;
    Similarity similarity;
    std::size_t max_edges = 16;             // HNSW M; Atlas allows 16..64
    std::size_t num_edge_candidates = 100;  // HNSW efConstruction; Atlas allows 100..3200
    Quantization quantization = Quantization::kNone;
    // Where a quantized index maps its full-precision vectors (an unnamed file there); empty:
    // anonymous memory.
    std::string vector_file_dir = {};
  };

  // A scalar-quantized index learns its range from this many vectors; until it has seen them
  // it has no graph and every search scans.
  static constexpr std::size_t kScalarTrainingVectors = 1024;

  struct Hit {
    std::uint64_t label;
    double score;  // 0..1, higher is nearer (see ScoreOf)
  };

  // Which labels a search may return; a null pointer admits all.
  using Filter = std::function<bool(std::uint64_t)>;

  explicit VectorIndex(Options options);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  // Indexes `vector` under `label`, replacing the label's previous vector. Returns false and
  // changes nothing when the vector cannot be indexed: its length is not `dimensions`, a value
  // is NaN or infinite, or (cosine) it is all zeros and so has no direction.
  bool Upsert(std::uint64_t label, std::span<const float> vector);
  // Hides `label` from every later search (its node stays in the graph as a tombstone until
  // Compact). No-op when the label is absent.
  void Remove(std::uint64_t label);

  std::size_t size() const;       // live vectors
  double TombstoneShare() const;  // tombstones / graph nodes, 0 for an empty graph
  // Rebuilds the graph from the live vectors only (a scalar-quantized one learns its range
  // again); answers stay the same but for what quantization approximates. Searches wait for it.
  void Compact();

  // The index as snapshot bytes (snapshot_bytes.h); the labels and tombstones with the graph.
  void AppendTo(SnapshotWriter& out) const;
  // An index of `options` from what AppendTo wrote, or null for bytes that are not one.
  static std::unique_ptr<VectorIndex> ReadFrom(Options options, SnapshotReader& in);

  // The best `limit` hits, highest score first (ties by label), among live labels that
  // `filter` admits: min(limit, number of such labels) of them. `exact`: a scan of every
  // admitted vector. Otherwise an HNSW search with a beam of max(num_candidates, limit) (on a
  // quantized index, the beam's vectors are then rescored at full precision), or a
  // scan when the filter admits under 5% of the graph's nodes, no more than the beam, or so few
  // that the graph search computes more distances than a scan of them would.
  // The most candidates Search scans rather than searching the graph, for a beam of
  // max(num_candidates, limit): more are no use to it, unless `exact`.
  std::size_t MaxScannedCandidates(std::size_t num_candidates, std::size_t limit) const;

  // `candidates`, when given: sorted labels that include every label `filter` admits (from
  // the filter fields' postings); when they are few, they are scanned instead of the graph or
  // of every vector.
  // Fails with BadValue when the query's length is not `dimensions` or a value is not finite.
  StatusWith<std::vector<Hit>> Search(std::span<const float> query, std::size_t limit,
                                      std::size_t num_candidates, const Filter* filter, bool exact,
                                      const std::vector<std::uint32_t>* candidates = nullptr) const;

 private:
  // How many live labels `filter` admits, from a sample. REQUIRES: the lock held.
  std::size_t EstimateAdmitted(const Filter& filter) const;
  std::vector<Hit> ScanExact(std::span<const float> query, std::size_t limit,
                             const Filter* filter) const;
  // ScanExact over `labels` only.
  std::vector<Hit> ScanLabels(std::span<const float> query, std::size_t limit, const Filter* filter,
                              const std::vector<std::uint32_t>& labels) const;
  // nullopt when the search would compute more than `max_distances` distances.
  std::optional<std::vector<Hit>> SearchGraph(std::span<const float> query, std::size_t limit,
                                              std::size_t ef, const Filter* filter,
                                              std::size_t max_distances) const;
  bool IsLive(std::uint32_t node) const { return !tombstoned_[node]; }
  std::size_t node_count() const { return node_labels_.size(); }
  bool quantized() const { return options_.quantization != Quantization::kNone; }
  // The vector of `node` as stored: normalized for cosine, full precision.
  std::span<const float> VectorOf(std::uint32_t node) const;
  // REQUIRES: the write lock (or an index no one else sees yet).
  void AddNode(std::uint64_t label, std::span<const float> stored);
  void Tombstone(std::uint32_t node);
  // A scalar-quantized index that has seen enough vectors gets its range and its graph.
  void TrainIfReady();
  std::unique_ptr<HnswGraph> MakeGraph(ScalarRange range) const;
  // glibc's shared_mutex lets a steady stream of readers starve a writer; a writer holds the
  // gate while it waits, so that new searches queue behind it.
  std::shared_lock<std::shared_mutex> ReadLock() const;
  std::unique_lock<std::shared_mutex> WriteLock();

  Options options_;
  mutable std::mutex writer_gate_;
  mutable std::shared_mutex mutex_;
  std::unique_ptr<HnswGraph> graph_;        // null while a scalar index learns its range
  std::unique_ptr<VectorStore> full_;       // full-precision vectors per node; quantized only
  std::vector<std::uint64_t> node_labels_;  // per graph node
  std::vector<bool> tombstoned_;            // per graph node
  std::unordered_map<std::uint64_t, std::uint32_t> node_of_label_;  // live labels only
  mutable VisitedPool visited_pool_;
};

}  // namespace quarry::vector
