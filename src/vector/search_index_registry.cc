#include "vector/search_index_registry.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <unordered_set>
#include <utility>

#include "bson/builder.h"
#include "storage/record_store.h"
#include "vector/document_vectors.h"
#include "vector/search_index_internal.h"
#include "vector/similarity.h"
#include "vector/vector_index.h"

namespace quarry::vector {

const char* BuildStatusName(BuildStatus status) {
  switch (status) {
    case BuildStatus::kPending:
      return "PENDING";
    case BuildStatus::kBuilding:
      return "BUILDING";
    case BuildStatus::kReady:
      return "READY";
    case BuildStatus::kFailed:
      return "FAILED";
  }
  return "FAILED";
}

namespace {

// Past this share of deleted or moved vectors, a graph is rebuilt from its live ones: tombstones
// still cost every search a visit.
constexpr double kCompactTombstoneShare = 0.25;
constexpr std::size_t kMinLabelsToCompact = 1024;

std::shared_ptr<SearchIndexRegistry::Built> MakeBuilt(std::int32_t version,
                                                      SearchIndexDefinition definition,
                                                      const std::string& vector_file_dir) {
  auto built = std::make_shared<SearchIndexRegistry::Built>();
  built->version = version;
  for (const VectorFieldDefinition& field : definition.vectors) {
    built->graphs.emplace(
        field.path, std::make_unique<VectorIndex>(VectorIndexOptions(field, vector_file_dir)));
  }
  built->definition = std::move(definition);
  return built;
}

}  // namespace

VectorIndex::Options VectorIndexOptions(const VectorFieldDefinition& field,
                                        const std::string& vector_file_dir) {
  return {.dimensions = field.dimensions,
          .similarity = *ParseSimilarity(field.similarity),
          .max_edges = field.max_edges,
          .num_edge_candidates = field.num_edge_candidates,
          .quantization = field.quantization,
          .vector_file_dir = vector_file_dir};
}

// Stores, removes or moves one record in one version. REQUIRES: built.mu held exclusively.
void ApplyToBuilt(SearchIndexRegistry::Built& built, const std::string& id_key,
                  const bson::DocumentView* document) {
  ++built.changes;
  auto known = built.label_of.find(id_key);
  if (document == nullptr) {
    if (known == built.label_of.end()) return;
    for (auto& [path, graph] : built.graphs) graph->Remove(known->second);
    built.filter_values[known->second] = bson::Document();
    built.id_key_of[known->second].clear();
    built.label_of.erase(known);
    return;
  }
  std::uint64_t label;
  if (known != built.label_of.end()) {
    label = known->second;
  } else {
    label = built.id_key_of.size();
    built.label_of.emplace(id_key, label);
    built.id_key_of.push_back(id_key);
    built.filter_values.emplace_back();
  }
  for (auto& [path, graph] : built.graphs) {
    std::optional<std::vector<float>> values = VectorAt(*document, path);
    // A document without a usable vector is simply not in that graph.
    if (!values.has_value() || !graph->Upsert(label, *values)) graph->Remove(label);
  }
  built.filter_values[label] = FilterFieldsOf(*document, built.definition.filter_paths);
}

SearchIndexRegistry::SearchIndexRegistry(const storage::RecordStore* records,
                                         const storage::Oplog* oplog, std::string snapshot_dir)
    : records_(records),
      oplog_(oplog),
      snapshot_dir_(std::move(snapshot_dir)),
      builder_([this] { RunBuilds(); }) {}

SearchIndexRegistry::~SearchIndexRegistry() { Shutdown(); }

void SearchIndexRegistry::Shutdown() {
  {
    std::lock_guard lock(queue_mu_);
    if (stopping_ && !builder_.joinable()) return;
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (builder_.joinable()) builder_.join();
}

void SearchIndexRegistry::Define(storage::CollectionId collection, std::string_view collection_uuid,
                                 const std::string& index_id, std::int32_t version,
                                 SearchIndexDefinition definition) {
  std::shared_ptr<Built> built = MakeBuilt(version, std::move(definition), snapshot_dir_);
  {
    std::unique_lock lock(mu_);
    std::shared_ptr<Entry>& entry = indexes_[collection][index_id];
    if (entry == nullptr) entry = std::make_shared<Entry>();
    const std::int32_t newest =
        entry->next ? entry->next->version : (entry->serving ? entry->serving->version : -1);
    if (version <= newest) return;
    // Registered before its scan starts, so every commit from now on reaches it.
    entry->next = built;
  }
  {
    std::lock_guard lock(queue_mu_);
    if (stopping_) return;
    queue_.push_back(std::make_shared<Pending>(
        Pending{collection, std::string(collection_uuid), index_id, built}));
  }
  queue_cv_.notify_one();
}

void SearchIndexRegistry::Drop(storage::CollectionId collection, const std::string& index_id) {
  std::unique_lock lock(mu_);
  auto it = indexes_.find(collection);
  if (it == indexes_.end()) return;
  it->second.erase(index_id);
  if (it->second.empty()) indexes_.erase(it);
  RemoveSnapshot(collection, index_id);
}

void SearchIndexRegistry::DropCollection(storage::CollectionId collection) {
  std::unique_lock lock(mu_);
  auto it = indexes_.find(collection);
  if (it == indexes_.end()) return;
  for (const auto& [index_id, entry] : it->second) RemoveSnapshot(collection, index_id);
  indexes_.erase(it);
}

SearchIndexState SearchIndexRegistry::State(storage::CollectionId collection,
                                            const std::string& index_id) const {
  std::shared_lock lock(mu_);
  SearchIndexState state;
  auto it = indexes_.find(collection);
  if (it == indexes_.end()) return state;
  auto entry = it->second.find(index_id);
  if (entry == it->second.end()) return state;
  const Entry& e = *entry->second;
  state.queryable = e.serving != nullptr;
  if (e.next == nullptr) {
    state.status = e.serving ? BuildStatus::kReady : BuildStatus::kPending;
    return state;
  }
  std::shared_lock built_lock(e.next->mu);
  if (!e.next->failure.empty()) {
    state.status = BuildStatus::kFailed;
    state.message = e.next->failure;
  } else {
    state.status = BuildStatus::kBuilding;
  }
  return state;
}

StatusWith<std::vector<VectorMatch>> SearchIndexRegistry::Search(storage::CollectionId collection,
                                                                 const VectorQuery& query) const {
  std::shared_ptr<Built> serving;
  {
    std::shared_lock lock(mu_);
    auto it = indexes_.find(collection);
    if (it == indexes_.end()) return std::vector<VectorMatch>();
    auto entry = it->second.find(query.index_id);
    if (entry == it->second.end()) return std::vector<VectorMatch>();
    serving = entry->second->serving;
  }
  if (serving == nullptr) return std::vector<VectorMatch>();
  std::shared_lock lock(serving->mu);
  auto graph = serving->graphs.find(query.path);
  if (graph == serving->graphs.end()) return std::vector<VectorMatch>();
  const VectorFieldDefinition* field = serving->definition.FindVector(query.path);
  std::function<bool(std::uint64_t)> admits = [&](std::uint64_t label) {
    return label < serving->filter_values.size() &&
           query.filter->Matches(serving->filter_values[label].view());
  };
  QUARRY_ASSIGN_OR_RETURN(
      std::vector<VectorIndex::Hit> hits,
      graph->second->Search(query.vector, query.limit, query.num_candidates,
                            query.filter != nullptr ? &admits : nullptr,
                            query.exact || (field != nullptr && field->exact_only)));
  std::vector<VectorMatch> matches;
  matches.reserve(hits.size());
  for (const VectorIndex::Hit& hit : hits) {
    if (hit.label >= serving->id_key_of.size() || serving->id_key_of[hit.label].empty()) continue;
    matches.push_back({serving->id_key_of[hit.label], hit.score});
  }
  return matches;
}

void SearchIndexRegistry::OnCommit(const storage::CommittedBatch& batch) {
  std::shared_lock lock(mu_);
  if (!batch.entries.empty()) applied_through_.store(batch.entries.back().ts);
  if (indexes_.empty()) return;
  for (const storage::CommittedEntry& committed : batch.entries) {
    if (committed.collection == 0) continue;
    auto it = indexes_.find(committed.collection);
    if (it == indexes_.end()) continue;
    bson::ValueView op = committed.entry.Get("op");
    bson::ValueView o = committed.entry.Get("o");
    if (op.type() != bson::Type::kString || o.type() != bson::Type::kDocument) continue;
    const bool removed = op.String() == "d";
    bson::DocumentView document = o.Document();
    const std::string id_key = storage::EncodeIdKey(document.Get("_id"));
    for (auto& [index_id, entry] : it->second) {
      for (const std::shared_ptr<Built>& built : {entry->serving, entry->next}) {
        if (built == nullptr) continue;
        std::unique_lock built_lock(built->mu);
        if (built->building) built->changed_during_build.insert(id_key);
        ApplyToBuilt(*built, id_key, removed ? nullptr : &document);
        if (NeedsCompaction(*built)) QueueCompaction(committed.collection, built);
      }
    }
  }
}

bool SearchIndexRegistry::NeedsCompaction(const Built& built) {
  if (built.building || built.compaction_queued.load() ||
      built.id_key_of.size() < kMinLabelsToCompact) {
    return false;
  }
  for (const auto& [path, graph] : built.graphs) {
    if (graph->TombstoneShare() > kCompactTombstoneShare) return true;
  }
  return false;
}

void SearchIndexRegistry::QueueCompaction(storage::CollectionId collection,
                                          const std::shared_ptr<Built>& built) {
  built->compaction_queued = true;
  {
    std::lock_guard lock(queue_mu_);
    if (stopping_) return;
    queue_.push_back(std::make_shared<Pending>(Pending{collection, "", "", built, true}));
  }
  queue_cv_.notify_one();
}

void SearchIndexRegistry::RunBuilds() {
  for (;;) {
    std::shared_ptr<Pending> pending;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      pending = std::move(queue_.front());
      queue_.pop_front();
    }
    if (pending->compaction) {
      // Each graph locks itself; searches wait while it is rebuilt.
      for (auto& [path, graph] : pending->built->graphs) {
        if (graph->TombstoneShare() > kCompactTombstoneShare) graph->Compact();
      }
      pending->built->compaction_queued = false;
    } else {
      Build(*pending);
    }
  }
}

bool SearchIndexRegistry::StillBuilding(const Pending& pending) const {
  std::shared_lock lock(mu_);
  auto it = indexes_.find(pending.collection);
  if (it == indexes_.end()) return false;
  auto entry = it->second.find(pending.index_id);
  return entry != it->second.end() && entry->second->next == pending.built;
}

void SearchIndexRegistry::Build(const Pending& pending) {
  const std::shared_ptr<Built>& built = pending.built;
  // A drop or a newer definition may have replaced it while it waited.
  if (!StillBuilding(pending)) return;
  if (LoadSnapshot(pending)) {
    Publish(pending);
    return;
  }
  std::unique_ptr<storage::RecordCursor> cursor = records_->Scan(pending.collection);
  std::size_t scanned = 0;
  for (; cursor->Valid(); cursor->Next()) {
    const std::string id_key(cursor->id_key());
    bson::DocumentView document = cursor->document();
    {
      std::unique_lock lock(built->mu);
      if (!built->changed_during_build.contains(id_key)) ApplyToBuilt(*built, id_key, &document);
    }
    if (++scanned % 1024 == 0) {
      {
        std::lock_guard lock(queue_mu_);
        if (stopping_) return;
      }
      if (!StillBuilding(pending)) return;
    }
  }
  if (!cursor->status().ok()) {
    std::unique_lock lock(built->mu);
    built->failure = cursor->status().reason();
    return;
  }
  Publish(pending);
}

void SearchIndexRegistry::Publish(const Pending& pending) {
  std::unique_lock lock(mu_);
  auto it = indexes_.find(pending.collection);
  if (it == indexes_.end()) return;
  auto entry = it->second.find(pending.index_id);
  if (entry == it->second.end() || entry->second->next != pending.built) return;
  std::unique_lock built_lock(pending.built->mu);
  pending.built->building = false;
  pending.built->changed_during_build.clear();
  entry->second->serving = pending.built;
  entry->second->next = nullptr;
}

}  // namespace quarry::vector
