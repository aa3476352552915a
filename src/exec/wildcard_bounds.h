// What a wildcard index scan reads for a filter: the keys of one field path, bounded as a
// single-field index on that path would be, as mongod's planner uses a wildcard index.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "catalog/collection_info.h"
#include "exec/index_bounds.h"
#include "exec/index_descriptor.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"
#include "storage/types.h"

namespace quarry::exec {

struct WildcardScan {
  std::string path;  // the field path whose keys are read
  // [the path's point] x [the field's intervals]; explain shows them under "$_path" and `path`.
  IndexBounds bounds;
  bson::Document key_pattern;  // as explain shows it: {$_path: 1, <path>: ±1}
  // {path: {$exists: true}}: every key of the path and of the paths below it, so a document
  // may be met more than once.
  bool subpaths = false;
};

// The scan of wildcard `index` for `filter`: of the paths the filter's conjuncts bound and the
// index covers, the first with an equality or $in, else the first with a range or regex, else
// the first with {$exists: true} (top-level or in $and), read with its subpaths whole. Left
// out, as mongod leaves them out, are conditions a document can meet without a key on the path:
// those that match a missing field or null ({a: null}, $in with null, {$lt: MaxKey}),
// equalities to arrays and non-empty documents (indexed as their elements and leaves), ranges
// over documents, arrays, MinKey or MaxKey, and paths with a numeric component ("a.0": it may
// name an array position). nullopt when no condition is left.
std::optional<WildcardScan> WildcardScanFor(const IndexDescriptor& index,
                                            const query::Matcher& filter);

// The multikey paths of a wildcard index (`runtime`) at or above `path`, sorted: its keys on
// `path` may then hold one document several times.
std::vector<std::string> MultikeyPathsAbove(catalog::IndexRuntime& runtime, std::string_view path);

// Explain's multiKeyPaths of a scan of `path`: {$_path: [], <path>: `multikey_paths`}.
bson::Document WildcardMultikeyPathsExplain(std::string_view path,
                                            const std::vector<std::string>& multikey_paths);

// The direction in which `scan` returns documents in `sort` order: a sort on its one path, when
// no document has an array in the index (`multikey` false); nullopt otherwise.
std::optional<storage::ScanDirection> WildcardSortDirection(const IndexDescriptor& index,
                                                            const WildcardScan& scan, bool multikey,
                                                            const query::SortSpec& sort);

}  // namespace quarry::exec
