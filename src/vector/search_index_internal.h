// The state behind SearchIndexRegistry, shared by its files (search_index_registry.cc builds
// and searches it, search_index_snapshot.cc saves and loads it).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bson/value.h"
#include "vector/search_index_definition.h"
#include "vector/search_index_registry.h"
#include "vector/vector_index.h"

namespace quarry::vector {

// Labels number the documents an index has seen; a label is never reused within one version.
struct SearchIndexRegistry::Built {
  std::int32_t version = 0;
  SearchIndexDefinition definition;

  mutable std::shared_mutex mu;  // guards everything below; the graphs lock themselves too
  std::map<std::string, std::unique_ptr<VectorIndex>, std::less<>> graphs;  // by vector path
  std::unordered_map<std::string, std::uint64_t> label_of;  // record id key -> label
  std::vector<std::string> id_key_of;                       // label -> record id key
  std::vector<bson::Document> filter_values;                // label -> the filter fields' values
  // While building: records a commit changed, which the collection scan must not overwrite
  // with what it read before.
  std::unordered_set<std::string> changed_during_build;
  bool building = true;
  std::string failure;
  std::atomic<bool> compaction_queued{false};
  std::uint64_t changes = 0;                        // records applied so far
  std::uint64_t saved_changes = ~std::uint64_t{0};  // `changes` at its last snapshot
};

struct SearchIndexRegistry::Entry {
  std::shared_ptr<Built> serving;  // null until the first version is built
  std::shared_ptr<Built> next;     // being built; null when none
};

struct SearchIndexRegistry::Pending {
  storage::CollectionId collection = 0;
  std::string collection_uuid;
  std::string index_id;
  std::shared_ptr<Built> built;
  bool compaction = false;  // rebuild the graphs without their tombstones, not a build
};

// The options of the vector index of `field`. A quantized one maps its full-precision vectors
// from an unnamed file in `vector_file_dir` (the snapshot directory; empty: memory).
VectorIndex::Options VectorIndexOptions(const VectorFieldDefinition& field,
                                        const std::string& vector_file_dir);

// Stores, removes or moves one record in one version. REQUIRES: built.mu held exclusively.
void ApplyToBuilt(SearchIndexRegistry::Built& built, const std::string& id_key,
                  const bson::DocumentView* document);

}  // namespace quarry::vector
