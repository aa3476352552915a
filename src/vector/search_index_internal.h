// The state behind SearchIndexRegistry, shared by its files (search_index_registry.cc builds
// and searches it, search_index_snapshot.cc saves and loads it).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bson/value.h"
#include "text/inverted_index.h"
#include "vector/filter_table.h"
#include "vector/packed_bytes.h"
#include "vector/search_index_definition.h"
#include "vector/search_index_registry.h"
#include "vector/vector_index.h"

namespace quarry::vector {

// Labels number what an index has seen: each document of a plain index, each element of the
// nested root's array of a nested one. Neither labels nor document slots are reused within one
// version. A document's labels are consecutive; an update keeps them for as many elements as
// it still has, and takes new ones only when it has more.
struct SearchIndexRegistry::Built {
  static constexpr std::uint32_t kNoDocument = ~std::uint32_t{0};

  struct IndexedDocument {
    std::uint64_t first_label = 0;
    std::uint32_t labels = 0;  // 1 for a plain index; the elements of a nested one
  };

  // Finds a document's slot by its id key, read from `id_keys` rather than kept twice.
  struct SlotHash {
    using is_transparent = void;
    const PackedBytes* id_keys;
    std::size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>()(key);
    }
    std::size_t operator()(std::uint32_t slot) const { return (*this)(id_keys->Get(slot)); }
  };
  struct SlotEqual {
    using is_transparent = void;
    const PackedBytes* id_keys;
    std::string_view KeyOf(std::string_view key) const { return key; }
    std::string_view KeyOf(std::uint32_t slot) const { return id_keys->Get(slot); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return KeyOf(a) == KeyOf(b);
    }
  };

  std::int32_t version = 0;
  SearchIndexDefinition definition;
  std::string vector_file_dir;  // where quantized graphs map their full-precision vectors

  mutable std::shared_mutex mu;  // guards everything below; the graphs lock themselves too
  // By vector path: the graph of float vectors (numbers, float32, int8), and for euclidean
  // fields the one of packed-bit (int1) vectors, which a query of that form searches.
  std::map<std::string, std::unique_ptr<VectorIndex>, std::less<>> graphs;
  std::map<std::string, std::unique_ptr<VectorIndex>, std::less<>> bit_graphs;
  std::vector<IndexedDocument> documents;  // by slot
  PackedBytes id_keys;                     // by slot: the record's encoded _id; empty once deleted
  // By slot: {_id: <the record's _id>}, which a query that needs nothing else of the record
  // returns without reading it; empty once deleted.
  PackedBytes id_documents;
  PackedBytes parent_filter_values;  // by slot, nested: the parent's filter fields (BSON)
  std::unordered_set<std::uint32_t, SlotHash, SlotEqual> slot_of{
      16, SlotHash{&id_keys}, SlotEqual{&id_keys}};  // the live slots, found by id key
  std::vector<std::uint32_t> document_of;            // label -> slot, or kNoDocument
  // label -> the filter fields' values (BSON): a plain index's document's, or a nested
  // element's placed under the root path so that filters name them by their full paths.
  FilterTable filter_values;
  // By label: the terms of the strings the definition's full_text maps; null without one.
  std::unique_ptr<text::InvertedIndex> full_text;
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

// The options of the graph of `field`'s float vectors, or of its packed-bit ones (euclidean
// over 0/1 elements, which scores 1 / (1 + Hamming distance), never quantized). A quantized
// graph maps its full-precision vectors from an unnamed file in `vector_file_dir` (the snapshot
// directory; empty: memory).
VectorIndex::Options GraphOptions(const VectorFieldDefinition& field, bool packed_bits,
                                  const std::string& vector_file_dir);

// Empties `built` back to its definition's empty graphs. REQUIRES: built.mu held exclusively.
void ResetBuilt(SearchIndexRegistry::Built& built);

// Stores, removes or moves one record in one version. REQUIRES: built.mu held exclusively.
void ApplyToBuilt(SearchIndexRegistry::Built& built, const std::string& id_key,
                  const bson::DocumentView* document);

}  // namespace quarry::vector
