// Executes a find: filter, sort, skip, limit and projection over a collection's records,
// producing the documents batch by batch for a client cursor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/cursor_source.h"
#include "query/match/matcher.h"
#include "query/projection/projection.h"
#include "query/record_source.h"
#include "query/sort/sort.h"

namespace quarry::query {

// mongod's internalQueryMaxBlockingSortMemoryUsageBytes.
inline constexpr std::size_t kMaxBlockingSortBytes = 100 * 1024 * 1024;

// A parsed find.
struct FindSpec {
  std::optional<Matcher> filter;         // none: every document
  std::optional<Projection> projection;  // none: whole documents
  SortSpec sort;
  std::int64_t skip = 0;   // >= 0
  std::int64_t limit = 0;  // > 0 limits; 0 means no limit
  std::size_t max_sort_bytes = kMaxBlockingSortBytes;

  // Parses the parts of a find command. Any view may be empty ({}); `skip` and `limit` must
  // be >= 0 (BadValue otherwise, with mongod's texts).
  static StatusWith<FindSpec> Parse(bson::DocumentView filter, bson::DocumentView projection,
                                    bson::DocumentView sort, std::int64_t skip, std::int64_t limit);
};

// Opens the collection's records in storage order, starting after the record with storage key
// `start_after_key` (from the first record when it is empty).
using RecordSourceFactory =
    std::function<std::unique_ptr<RecordSource>(std::string_view start_after_key)>;

class FindExecutor : public CursorSource {
 public:
  FindExecutor(FindSpec spec, RecordSourceFactory open_records);

  // Without a sort, documents stream: each batch opens a fresh RecordSource after the last
  // storage key it consumed, so no storage snapshot or iterator lives between getMores. With a
  // sort (or {$natural: -1}), the first call reads every match into memory (failing with 292
  // QueryExceededMemoryLimitNoDiskUseAllowed past spec.max_sort_bytes), sorts stably, and later
  // calls serve from memory. Not thread-safe: one caller at a time (CursorManager ensures it).
  StatusWith<Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) override;
  bool exhausted() const override { return exhausted_; }

  // Documents returned so far (after skip), for limit accounting and diagnostics.
  std::int64_t returned() const { return returned_; }

 private:
  StatusWith<Batch> NextStreamingBatch(std::size_t max_docs, std::size_t max_bytes);
  StatusWith<Batch> NextBufferedBatch(std::size_t max_docs, std::size_t max_bytes);
  Status LoadAndSort();
  // Matches `doc`; on a match fills `details` when the projection needs them.
  bool Accept(bson::DocumentView doc, MatchDetails* details) const;
  StatusWith<bson::Document> Shape(bson::DocumentView doc, const MatchDetails& details) const;
  std::int64_t RemainingLimit() const;

  struct Buffered {
    bson::Document doc;
    MatchDetails details;
  };

  FindSpec spec_;
  RecordSourceFactory open_records_;
  bool buffered_mode_ = false;
  bool loaded_ = false;
  bool exhausted_ = false;
  std::string resume_after_;  // streaming: storage key of the last record consumed
  std::int64_t to_skip_ = 0;  // streaming: matches still to skip
  std::int64_t returned_ = 0;
  std::vector<Buffered> buffered_;  // buffered: sorted documents, served from next_buffered_
  std::size_t next_buffered_ = 0;
};

}  // namespace quarry::query
