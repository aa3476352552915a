// IXSCAN: the entries of one index within its bounds' intervals, in index order or its reverse,
// each handed up as the record it points to (id_key), for FETCH to read, or in a covered read as
// the document its key values stand for (with the entry's id_key and index_key, for a merge). In a
// multikey index a record has several entries: only its first is handed up.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "base/interrupt.h"
#include "exec/index_bounds.h"
#include "exec/index_catalog.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/index_store.h"
#include "storage/record_store.h"

namespace quarry::exec {

struct IndexScanOptions {
  storage::IndexId index = 0;
  std::shared_ptr<const ParsedIndex> parsed;  // the index's keys, for find's returnKey
  std::string name;
  bson::Document key_pattern;
  bool multikey = false;
  // Explain's multiKeyPaths ({$_path: [], "a.b": ["a"]}), shown for wildcard indexes only.
  std::optional<bson::Document> multikey_paths;
  // Drop repeated records though the index is not multikey: a wildcard scan of a path's
  // subpaths meets a document once per leaf.
  bool dedup = false;
  bool unique = false;
  bool sparse = false;
  bool partial = false;
  IndexBounds bounds;
  storage::ScanDirection direction = storage::ScanDirection::kForward;

  // A covered read (covered_read.h): each entry is handed up as the document its key values
  // stand for, when it matches `filter`. An entry that keeps no values (key_values.h) is
  // answered from its record, read from `records`, instead.
  bool covered = false;
  std::optional<query::Matcher> filter;
  const storage::RecordStore* records = nullptr;
  storage::CollectionId collection = 0;
};

// Explain's fields for a scan of an index with these options: keyPattern, indexName, the
// index's flags, direction, indexBounds, and a covered read's filter.
void AppendIndexScanDetails(const IndexScanOptions& options, bson::DocumentBuilder* b);

class IndexScan final : public PlanStage {
 public:
  IndexScan(const storage::IndexStore* indexes, std::shared_ptr<const Interrupt> interrupt,
            IndexScanOptions options);

  std::string_view name() const override { return "IXSCAN"; }
  void Save() override;
  Status Restore() override;

  const IndexScanOptions& options() const { return options_; }

  // $indexStats counts the queries an index answered: a scan in a trial of several plans
  // holds its count (HoldUseCount), and only the chosen plan's scans count (CountUse).
  void HoldUseCount() { counted_use_ = true; }
  void CountUse() const;

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;
  void AppendLeafSummary(std::string* out) const override;
  void ExplainStats(bson::DocumentBuilder* b) const override;
  // Opens the cursor on interval `interval_`, after `resume_after_` when set.
  void Open();
  // A covered read's result for the current entry, if it matches the filter.
  StatusWith<bool> CoveredResult(PlanResult* out);
  bool forward() const { return options_.direction == storage::ScanDirection::kForward; }

  const storage::IndexStore* indexes_;
  std::shared_ptr<const Interrupt> interrupt_;
  IndexScanOptions options_;
  // Each interval is one key of a unique index: read with a point lookup, not a range scan.
  bool point_lookups_ = false;
  std::size_t interval_ = 0;  // the intervals done, in scan order
  std::unique_ptr<storage::IndexCursor> cursor_;
  std::string resume_after_;  // the last entry handed up, while saved
  bool returned_current_ = false;
  bool counted_use_ = false;              // this plan's read is counted once in $indexStats
  std::unordered_set<std::string> seen_;  // multikey: records handed up
  std::int64_t seeks_ = 0;
  std::int64_t dups_tested_ = 0;
  std::int64_t dups_dropped_ = 0;
};

}  // namespace quarry::exec
