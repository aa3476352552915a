#include "vector/search_index_registry.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <unordered_set>
#include <utility>

#include "bson/builder.h"
#include "storage/oplog_entry.h"
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
  built->definition = std::move(definition);
  built->vector_file_dir = vector_file_dir;
  ResetBuilt(*built);
  return built;
}

using Built = SearchIndexRegistry::Built;

// Where a vector field's values are read from an element: below the nested root, else the
// whole path in the document.
std::string_view PathInElement(const SearchIndexDefinition& definition, std::string_view path) {
  if (definition.nested_root.empty()) return path;
  return path.substr(definition.nested_root.size() + 1);
}

// An empty document is kept as nothing: reading nothing gives {}.
std::string_view BytesOrNothing(const bson::Document& document) {
  return document.view().empty() ? std::string_view() : document.view().bytes();
}

// {_id: <document's _id>}. Every stored record has an _id.
bson::Document IdDocumentOf(bson::DocumentView document) {
  bson::DocumentBuilder b;
  b.Append("_id", document.Get("_id"));
  return std::move(b).Finish();
}

void Unindex(Built& built, std::uint64_t label) {
  for (auto& [path, graph] : built.graphs) graph->Remove(label);
  for (auto& [path, graph] : built.bit_graphs) graph->Remove(label);
  built.document_of[label] = Built::kNoDocument;
  built.filter_values.Set(label, {});
  if (built.full_text != nullptr) built.full_text->Remove(static_cast<std::uint32_t>(label));
}

// Puts each vector of `element` in the graph of its form, and out of the other one.
void IndexElement(Built& built, std::uint64_t label, bson::DocumentView element,
                  const std::vector<std::string>& filter_paths) {
  for (auto& [path, graph] : built.graphs) {
    bson::ValueView value = ValueAt(element, PathInElement(built.definition, path));
    const bool packed_bits = FormOf(value) == VectorForm::kPackedBits;
    auto bits = built.bit_graphs.find(path);
    VectorIndex* target = graph.get();
    VectorIndex* other = bits != built.bit_graphs.end() ? bits->second.get() : nullptr;
    if (packed_bits) std::swap(target, other);
    std::optional<std::vector<float>> values = VectorOf(value);
    // A document without a usable vector is simply not in that graph.
    if (target != nullptr && (!values.has_value() || !target->Upsert(label, *values))) {
      target->Remove(label);
    }
    if (other != nullptr) other->Remove(label);
  }
  bson::Document fields = FilterFieldsOf(element, filter_paths);
  if (!built.definition.nested_root.empty()) {
    fields = UnderRoot(built.definition.nested_root, fields.view());
  }
  built.filter_values.Set(label, BytesOrNothing(fields));
  if (built.full_text != nullptr) {
    built.full_text->Set(static_cast<std::uint32_t>(label), *built.definition.full_text, element);
  }
}

}  // namespace

VectorIndex::Options GraphOptions(const VectorFieldDefinition& field, bool packed_bits,
                                  const std::string& vector_file_dir) {
  return VectorIndex::Options{
      .dimensions = field.dimensions,
      .similarity = packed_bits ? Similarity::kEuclidean : *ParseSimilarity(field.similarity),
      .max_edges = field.max_edges,
      .num_edge_candidates = field.num_edge_candidates,
      .quantization = packed_bits ? Quantization::kNone : field.quantization,
      .vector_file_dir = vector_file_dir};
}

void ResetBuilt(Built& built) {
  built.slot_of.clear();
  built.documents.clear();
  built.id_keys.Clear();
  built.id_documents.Clear();
  built.parent_filter_values.Clear();
  built.document_of.clear();
  built.filter_values.Reset(built.definition.filter_paths);
  built.graphs.clear();
  built.bit_graphs.clear();
  built.full_text =
      built.definition.full_text.has_value() ? std::make_unique<text::InvertedIndex>() : nullptr;
  for (const VectorFieldDefinition& field : built.definition.vectors) {
    built.graphs.emplace(field.path, std::make_unique<VectorIndex>(
                                         GraphOptions(field, false, built.vector_file_dir)));
    // Atlas takes int1 vectors only with euclidean similarity.
    if (field.similarity == "euclidean") {
      built.bit_graphs.emplace(field.path, std::make_unique<VectorIndex>(
                                               GraphOptions(field, true, built.vector_file_dir)));
    }
  }
}

void ApplyToBuilt(Built& built, const std::string& id_key, const bson::DocumentView* document) {
  ++built.changes;
  auto known = built.slot_of.find(std::string_view(id_key));
  if (document == nullptr) {
    if (known == built.slot_of.end()) return;
    const std::uint32_t slot = *known;
    built.slot_of.erase(known);  // before its key goes: the set hashes the key
    Built::IndexedDocument& gone = built.documents[slot];
    for (std::uint32_t i = 0; i < gone.labels; ++i) Unindex(built, gone.first_label + i);
    gone = Built::IndexedDocument();
    built.id_keys.Set(slot, {});
    built.id_documents.Set(slot, {});
    built.parent_filter_values.Set(slot, {});
    return;
  }
  std::uint32_t slot;
  if (known != built.slot_of.end()) {
    slot = *known;
  } else {
    slot = static_cast<std::uint32_t>(built.documents.size());
    built.documents.emplace_back();
    built.id_keys.Append(id_key);
    // A record keeps its _id for as long as it keeps its slot: only an insert sets it.
    built.id_documents.Append(IdDocumentOf(*document).view().bytes());
    built.parent_filter_values.Append({});
    built.slot_of.insert(slot);
  }
  const SearchIndexDefinition& definition = built.definition;
  const bool nested = !definition.nested_root.empty();
  const std::vector<bson::DocumentView> elements =
      nested ? ElementsAt(*document, definition.nested_root)
             : std::vector<bson::DocumentView>{*document};
  Built::IndexedDocument& indexed = built.documents[slot];
  if (elements.size() > indexed.labels) {
    // More elements than labels: a new run of consecutive labels replaces the old one.
    for (std::uint32_t i = 0; i < indexed.labels; ++i) Unindex(built, indexed.first_label + i);
    indexed.first_label = built.document_of.size();
    built.document_of.resize(built.document_of.size() + elements.size(), slot);
    for (std::size_t i = 0; i < elements.size(); ++i) built.filter_values.Append({});
  } else {
    for (std::size_t i = elements.size(); i < indexed.labels; ++i) {
      Unindex(built, indexed.first_label + i);
    }
  }
  indexed.labels = static_cast<std::uint32_t>(elements.size());
  const std::vector<std::string> filter_paths =
      nested ? definition.ElementFilterPaths() : definition.filter_paths;
  for (std::size_t element_idx = 0; element_idx < elements.size(); ++element_idx) {
    IndexElement(built, indexed.first_label + element_idx, elements[element_idx], filter_paths);
  }
  if (nested) {
    bson::Document parent = FilterFieldsOf(*document, definition.ParentFilterPaths());
    built.parent_filter_values.Set(slot, BytesOrNothing(parent));
  }
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

void SearchIndexRegistry::OnCommit(const storage::CommittedBatch& batch) {
  std::shared_lock lock(mu_);
  if (!batch.entries.empty()) applied_through_.store(batch.entries.back().ts);
  if (indexes_.empty()) return;
  for (const storage::CommittedEntry& committed : batch.entries) {
    if (committed.collection == 0) continue;
    auto it = indexes_.find(committed.collection);
    if (it == indexes_.end()) continue;
    // Inflates a compressed document once for all of the collection's indexes.
    StatusWith<storage::OplogEntry> parsed = storage::ParseOplogEntry(committed.entry);
    if (!parsed.ok()) continue;
    const std::string_view op = parsed.value().op;
    if (op != "i" && op != "u" && op != "d") continue;
    const bool removed = op == "d";
    bson::DocumentView document = parsed.value().o;
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
      built.document_of.size() < kMinLabelsToCompact) {
    return false;
  }
  for (const auto* graphs : {&built.graphs, &built.bit_graphs}) {
    for (const auto& [path, graph] : *graphs) {
      if (graph->TombstoneShare() > kCompactTombstoneShare) return true;
    }
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
      for (auto* graphs : {&pending->built->graphs, &pending->built->bit_graphs}) {
        for (auto& [path, graph] : *graphs) {
          if (graph->TombstoneShare() > kCompactTombstoneShare) graph->Compact();
        }
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
  if (built->full_text != nullptr) {
    std::unique_lock lock(built->mu);
    built->full_text->ShrinkToFit();
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
