// Checks a collection's secondary indexes against its records: every entry a record makes is
// there, and every entry there is made by the record it points to. What validate reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "exec/capped.h"
#include "exec/collection.h"
#include "exec/exec_context.h"

namespace quarry::exec {

struct IndexEntryProblem {
  std::string index;   // the index's name
  bson::Document key;  // {field: value, ...} as far as it can be read, and the record's _id
};

struct IndexCheckResult {
  std::string name;
  std::int64_t keys = 0;  // entries found in the index
  std::int64_t missing = 0;
  std::int64_t extra = 0;
};

struct CollectionCheck {
  std::int64_t records = 0;
  std::vector<IndexCheckResult> indexes;            // the ready secondary indexes, in catalog order
  std::vector<IndexEntryProblem> missing_examples;  // the first few of each kind
  std::vector<IndexEntryProblem> extra_examples;
  std::optional<NaturalOrderCheck> natural_order;  // a capped collection's
};

// What checkBSONConformance finds in a collection's records beyond what CheckIndexes reads.
struct RecordConformance {
  std::int64_t invalid = 0;        // not well-formed BSON (bson::Validate)
  std::int64_t non_compliant = 0;  // well-formed, with a key or string that is not UTF-8
};

// Checks every record of `collection` as a document a client could have sent: its structure,
// then the UTF-8 of its keys and strings.
StatusWith<RecordConformance> CheckRecordConformance(const ExecContext& ctx,
                                                     const Collection& collection);

// Walks the records and each ready secondary index of `collection` in one snapshot, holding its
// writers lock so that no write commits meanwhile. Keeps each index's expected entries in memory
// while it compares them (fails with ExceededMemoryLimit past `max_memory_bytes`).
StatusWith<CollectionCheck> CheckIndexes(const ExecContext& ctx, const Collection& collection,
                                         std::size_t max_memory_bytes);

}  // namespace quarry::exec
