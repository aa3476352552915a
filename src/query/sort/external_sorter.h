// A stable sort of documents that keeps at most a memory limit of them in memory: past it, it
// writes what it holds as a sorted run to a spill directory (query/spill/spill_file.h) and goes
// on, and at the end merges the runs and what is left in memory as a stream. Used by $sort and
// by find's SORT.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/sort/sort.h"
#include "query/spill/spill_file.h"
#include "query/spill/spill_stats.h"

namespace quarry::query {

struct SorterOptions {
  // Bytes of buffered documents (their BSON, their side documents and a fixed overhead each)
  // past which the sorter spills, or fails without a spill directory.
  std::size_t max_memory_bytes = 100 * 1024 * 1024;
  // Keep only the first `limit` documents in order (a top-k sort); 0: all.
  std::size_t limit = 0;
  // Where runs go; empty: nowhere, and passing the limit fails with 292
  // QueryExceededMemoryLimitNoDiskUseAllowed, as mongod's sorts do without allowDiskUse.
  std::string spill_dir;
  // The server's totals that the spills of this sort add to; null: none.
  SpillCounters* counters = nullptr;
};

class ExternalSorter {
 public:
  // One sorted document and its side document (what travels with it unsorted: a pipeline
  // document's metadata, a find result's match details; empty when there is none).
  struct Item {
    bson::Document doc;
    bson::Document extra;
  };

  ExternalSorter(SortSpec spec, SorterOptions options);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  // Adds a document. Documents whose keys compare equal come out in the order they were added.
  // Fails with 292 past the memory limit without a spill directory, and with OperationFailed
  // when a run cannot be written.
  Status Add(bson::Document doc, bson::Document extra = bson::Document());
  // Ends the input. REQUIRES: called once, after the last Add.
  Status Finish();
  // Stores the next item in order in *out and returns true, or returns false at the end.
  // REQUIRES: Finish succeeded.
  StatusWith<bool> Next(Item* out);

  // What this sort wrote to disk so far.
  const SpillStats& spill_stats() const { return stats_; }
  // Bytes of the documents added (their BSON), as explain's totalDataSizeSorted.
  std::uint64_t bytes_sorted() const { return bytes_sorted_; }

  class Merge;  // the k-way merge of sorted sources (external_sorter.cc)

 private:
  // Sorts the buffered items stably and keeps the first `limit` of them.
  void SortBuffer();
  // Writes the buffer, sorted, as a new run; merges the runs into one when there are too many.
  Status Spill();
  Status MergeRuns();
  Status WriteRun(Merge* source);

  SortSpec spec_;
  SorterOptions options_;
  std::vector<Item> buffer_;
  std::size_t buffer_bytes_ = 0;
  std::size_t next_ = 0;  // in buffer_, when no run was written
  std::vector<SpillRun> runs_;
  std::unique_ptr<Merge> merge_;  // after Finish, when runs were written
  SpillStats stats_;
  std::uint64_t bytes_sorted_ = 0;
  bool finished_ = false;
};

// The 292 error of a sort past `limit_bytes` without allowDiskUse.
Status SortMemoryExceeded(std::size_t limit_bytes);

}  // namespace quarry::query
