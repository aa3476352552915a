// Every search index of every collection, in memory: the vector graphs, the values of each
// indexed document's filter fields, the inverted index of its strings (a "search" index that
// maps strings), and the build state $listSearchIndexes reports. It is a
// commit observer: each committed chunk updates the indexes of its collections before the
// write is acknowledged, so the next query sees it. Indexes are built in a background thread;
// until then they are BUILDING and answer no query. A build starts from the index's snapshot
// (SaveSnapshots: periodically and at shutdown) and redoes the oplog after it, or, without a
// usable snapshot (missing, torn, of another version, older than the oplog or newer than its
// last entry), scans the collection's records. An index that holds strings has no snapshot:
// it is always built by the scan.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/match/matcher.h"
#include "storage/commit_pipeline.h"
#include "storage/oplog.h"
#include "storage/record_store.h"
#include "text/search_facets.h"
#include "text/search_operator.h"
#include "text/search_sort.h"
#include "vector/search_index_definition.h"

namespace quarry::vector {

enum class BuildStatus { kPending, kBuilding, kReady, kFailed };
const char* BuildStatusName(BuildStatus status);

struct SearchIndexState {
  BuildStatus status = BuildStatus::kPending;
  bool queryable = false;  // a version of the index answers queries (also while a newer builds)
  std::string message;     // why it FAILED
};

struct VectorQuery {
  std::string index_id;
  std::string path;
  std::vector<float> vector;
  bool packed_bits = false;  // an int1 query: it searches the packed-bit vectors only
  std::size_t limit = 0;     // documents (parents, for a nested index)
  std::size_t num_candidates = 0;
  bool exact = false;
  // On the index's filter fields (a nested index's element fields); null: none.
  const query::Matcher* filter = nullptr;
  // The filter as given (MQL), from which the index's postings narrow its candidates.
  bson::DocumentView filter_document;
  // Nested indexes only: on the parent's filter fields outside the root; null: none.
  const query::Matcher* parent_filter = nullptr;
  // Nested indexes only: a parent scores the average of its elements' scores, not the best.
  bool average_score = false;
};

struct SearchMatch {
  std::string id_key;  // the record's encoded _id (storage::EncodeIdKey)
  double score = 0;
  bson::Document id_document;  // {_id: <the record's _id>}
};

// Where a $search match ranks: its sort key (text::SortKeyOf; empty when ranked by score), its
// score and its label. searchAfter and searchBefore continue from one.
struct TextRank {
  bson::Document key;
  double score = 0;
  std::uint32_t label = 0;
};

// One $search match: its record's encoded _id and its rank.
struct TextMatch {
  std::string id_key;
  TextRank rank;
};

// The order of a $search's matches: by score, or by `sort` (null: by score); only those ranked
// after `after`, or only those ranked before `before`, nearest to it first.
struct TextOrder {
  std::shared_ptr<const text::SearchSort> sort;
  std::optional<TextRank> after;
  std::optional<TextRank> before;
};

class SearchIndexRegistry : public storage::CommitObserver {
 public:
  // `snapshot_dir` empty: no snapshots, every build scans.
  SearchIndexRegistry(const storage::RecordStore* records, const storage::Oplog* oplog,
                      std::string snapshot_dir);
  ~SearchIndexRegistry() override;
  SearchIndexRegistry(const SearchIndexRegistry&) = delete;
  SearchIndexRegistry& operator=(const SearchIndexRegistry&) = delete;

  // Starts building version `version` of index `index_id` of `collection` from its records.
  // A version that is already defined or older is ignored; a newer one replaces the serving
  // one once it is built.
  // `collection_uuid` (16 bytes) finds the collection's entries in the oplog.
  void Define(storage::CollectionId collection, std::string_view collection_uuid,
              const std::string& index_id, std::int32_t version, SearchIndexDefinition definition);
  void Drop(storage::CollectionId collection, const std::string& index_id);
  void DropCollection(storage::CollectionId collection);

  SearchIndexState State(storage::CollectionId collection, const std::string& index_id) const;

  // The `limit` best matches, best first. An index that is unknown or not yet queryable gives
  // none (as Atlas answers an unknown index); a query vector of the wrong length is BadValue.
  // A nested index answers each parent once, scored over its elements that the filters admit.
  StatusWith<std::vector<SearchMatch>> Search(storage::CollectionId collection,
                                              const VectorQuery& query) const;

  // Every document of index `index_id` that `op` matches, ranked as they are taken (see
  // TextMatches) in `order`. An index that is unknown, not yet queryable or without strings
  // gives none; BadValue when `order`'s after or before rank was made under another sort.
  // `interrupt` (null: none) stops a long evaluation with its error.
  class TextMatches;
  // Reads the synonym mappings a search names, as the serving index's mapping defines them
  // (their sources are collections, which this layer does not read).
  using SynonymReader = std::function<StatusWith<text::SynonymMaps>(const text::FullTextMapping&)>;
  // `synonyms` (null: none) is asked once the serving index is known.
  StatusWith<TextMatches> SearchText(storage::CollectionId collection, const std::string& index_id,
                                     const text::SearchOperator& op, TextOrder order,
                                     const Interrupt* interrupt,
                                     const SynonymReader* synonyms = nullptr) const;

  // The documents `op` matches (null: every document of the index), and their counts by
  // `facets` (text::CountFacets). An index that is unknown or not yet queryable counts none;
  // BadValue when the index does not map a facet's path as the facet needs.
  struct FacetCounts {
    std::size_t matched = 0;
    bson::Document facets;
  };
  StatusWith<FacetCounts> CountFacets(storage::CollectionId collection, const std::string& index_id,
                                      const text::SearchOperator* op,
                                      const std::vector<text::SearchFacet>& facets,
                                      const Interrupt* interrupt,
                                      const SynonymReader* synonyms = nullptr) const;

  void OnCommit(const storage::CommittedBatch& batch) override;

  // Writes a snapshot of every built index that changed since its last one. Commits wait
  // while the indexes are copied out, not while the files are written.
  void SaveSnapshots();

  // Copies the snapshot files into `dir` (created 0700, files 0600), as they stand; for a
  // backup. A snapshot newer than the oplog it is later opened with is not used (LoadSnapshot),
  // so a copy taken after the database's checkpoint can only save a rebuild, never mislead.
  Status CopySnapshotsTo(const std::string& dir) const;

  // Stops the build thread; Define and OnCommit are then no-ops. Idempotent.
  void Shutdown();

  struct Built;    // one version of one index, ready or being built
  struct Entry;    // one index: its serving version and the one being built
  struct Pending;  // a build waiting for the thread

 private:
  // The built index serving `index_id`'s queries, or null when there is none yet.
  std::shared_ptr<Built> Serving(storage::CollectionId collection,
                                 const std::string& index_id) const;
  void RunBuilds();
  void Build(const Pending& pending);
  // Fills `built` from its snapshot and the oplog after it; false when there is none to use.
  bool LoadSnapshot(const Pending& pending);
  bool StillBuilding(const Pending& pending) const;
  void Publish(const Pending& pending);
  std::string SnapshotPath(storage::CollectionId collection, const std::string& index_id) const;
  void RemoveSnapshot(storage::CollectionId collection, const std::string& index_id) const;
  // REQUIRES: built.mu held.
  static bool NeedsCompaction(const Built& built);
  void QueueCompaction(storage::CollectionId collection, const std::shared_ptr<Built>& built);

  const storage::RecordStore* records_;
  const storage::Oplog* oplog_;
  const std::string snapshot_dir_;
  std::atomic<storage::Timestamp> applied_through_{0};  // the newest entry OnCommit applied
  mutable std::shared_mutex mu_;
  // collection -> index id -> entry; guarded by mu_.
  std::unordered_map<storage::CollectionId, std::map<std::string, std::shared_ptr<Entry>>> indexes_;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::shared_ptr<Pending>> queue_;  // guarded by queue_mu_
  bool stopping_ = false;                       // guarded by queue_mu_
  std::thread builder_;
};

// The documents one $search matched, best first or in its sort's order (ties in the order the
// index first held them), without their id_document. They are ranked as they are taken, so a
// search whose reader stops early ($limit) never orders the rest; a document deleted since the
// search is skipped.
class SearchIndexRegistry::TextMatches {
 public:
  TextMatches() = default;
  // The next `max` matches at most; none once all are taken.
  std::vector<TextMatch> Next(std::size_t max);
  // How many matched when the search ran.
  std::size_t matched() const { return matched_; }

 private:
  friend class SearchIndexRegistry;
  struct Ranked {
    std::uint32_t label;
    double score;
    std::uint32_t key;  // with a sort: the match's sort key in keys_
  };
  // Heap order: whether `a` comes out after `b`.
  bool RanksBelow(const Ranked& a, const Ranked& b) const;
  bson::DocumentView KeyOf(const Ranked& ranked) const {
    return sort_ != nullptr ? keys_[ranked.key].view() : bson::DocumentView();
  }

  std::shared_ptr<const Built> built_;
  std::vector<Ranked> heap_;                      // the next match on top
  std::shared_ptr<const text::SearchSort> sort_;  // null: by score
  std::vector<bson::Document> keys_;              // text::SortKeyOf of each match, with sort_
  bool reverse_ = false;                          // searchBefore: nearest the rank first
  std::size_t matched_ = 0;
};

}  // namespace quarry::vector
