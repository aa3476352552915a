// The catalog's indexes as execution uses them: each spec parsed once, and what a unique
// index's DuplicateKey errors name.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "catalog/collection_info.h"
#include "exec/index_descriptor.h"
#include "storage/write_unit.h"

namespace quarry::exec {

struct ParsedIndex {
  IndexDescriptor descriptor;
  std::shared_ptr<const storage::UniqueIndexInfo> unique;  // null unless the index is unique
  // A scan's plan summary, "IXSCAN { a: 1 }", made once rather than for every query that
  // scans the index (a wildcard scan names the path it scans instead).
  std::string scan_summary;
  // The top-level fields its keys are made from, distinct, when nothing else decides them; none
  // for a wildcard or partial index, whose keys may depend on any field. A change that leaves
  // these fields' bytes alone leaves the document's keys alone.
  std::optional<std::vector<std::string>> key_sources;
};

// `index` parsed, made on first use and kept with its catalog entry. Options collMod changes
// (hidden, expireAfterSeconds) may be stale here: read them from the catalog's spec. Fails only
// for a spec createIndexes would have refused (a catalog written by another version).
// REQUIRES: `index` is a secondary index.
StatusWith<std::shared_ptr<const ParsedIndex>> ParsedIndexOf(const catalog::IndexInfo& index);

}  // namespace quarry::exec
