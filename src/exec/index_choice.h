// Which index, if any, answers a read: the candidates are the ready, visible indexes that bound
// the filter or give the requested order, and a fixed ranking picks one.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/status.h"
#include "catalog/collection_info.h"
#include "exec/index_bounds.h"
#include "exec/index_catalog.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"
#include "storage/types.h"

namespace quarry::exec {

struct IndexAccess {
  const catalog::IndexInfo* index = nullptr;  // into the collection's catalog entry
  std::shared_ptr<const ParsedIndex> parsed;
  IndexBounds bounds;
  storage::ScanDirection direction = storage::ScanDirection::kForward;
  bool bounded = false;        // the bounds come from the filter (else: the whole index)
  bool provides_sort = false;  // the scan returns documents in the requested sort order
  bool multikey = false;
  // A wildcard index's scan reads one path: explain's key pattern for it ({$_path: 1, "a": 1})
  // and its multiKeyPaths ({$_path: [], "a": []}).
  std::optional<bson::Document> wildcard_key_pattern;
  std::optional<bson::Document> wildcard_multikey_paths;
  bool wildcard_subpaths = false;  // the scan also reads the path's subpaths ($exists)
};

// Every index scan that can answer `filter` (none: every document) with `sort` (empty: any
// order): one per ready, visible, usable index of `info` that bounds the filter or gives the
// order, in catalog order. The _id index is left out (records are read in its order).
StatusWith<std::vector<IndexAccess>> CandidateIndexes(const catalog::CollectionInfo& info,
                                                      const query::Matcher* filter,
                                                      const query::SortSpec& sort);

// The index scan for `filter` (none: every document) and `sort` (empty: any order) among the
// indexes of `info`, or nullopt when a collection scan is the plan. Ranking: more key fields
// pinned by equality, then any bounds at all, then providing the sort, then fewer key fields.
// A partial index qualifies only when the filter implies its filter; a sparse one only with
// bounds that exclude missing fields.
StatusWith<std::optional<IndexAccess>> ChooseIndex(const catalog::CollectionInfo& info,
                                                   const query::Matcher* filter,
                                                   const query::SortSpec& sort);

// The first ready, visible unique index of `info` every key field of which `filter` sets equal
// to a point value (id_point.h) at its top level: a read that names at most one document, by
// one key. Partial, wildcard and collated indexes do not count (their use depends on more
// than the filter), nor sparse ones unless `sparse_counts` (a point value is never missing, so
// a sparse index holds every match). Null when none qualifies.
StatusWith<const catalog::IndexInfo*> UniqueIndexPinnedBy(const catalog::CollectionInfo& info,
                                                          bson::DocumentView filter,
                                                          bool sparse_counts);

// The scan of UniqueIndexPinnedBy's index for `filter` under the simple collation: it reads one
// key, so no candidate can read less, and the trial among candidates is skipped, as mongod's
// express path skips it. nullopt when no index qualifies.
StatusWith<std::optional<IndexAccess>> UniquePointAccess(const catalog::CollectionInfo& info,
                                                         const query::Matcher& filter);

// The branches of the filter's top-level $or, each parsed alone under the filter's collation;
// nullopt when it has none or a branch does not parse alone (it reads `let` variables), which
// leaves the filter to a scan of all.
std::optional<std::vector<query::Matcher>> OrBranchesOf(const query::Matcher& filter);

// One bounded index scan per branch of the filter's top-level $or, each chosen for its branch
// as ChooseIndex chooses (with `sort`, which only breaks ties and sets directions); nullopt when
// the filter has no top-level $or or a branch has no bounded index. A record matching the filter
// matches a branch, so it lies in that branch's scan: the union of the scans holds every match.
StatusWith<std::optional<std::vector<IndexAccess>>> ChooseOrIndexes(
    const catalog::CollectionInfo& info, const query::Matcher& filter,
    const query::SortSpec& sort = query::SortSpec());

// mongod's internalQueryMaxScansToExplode: the most index scans a SORT_MERGE merges when it
// splits scans to get a sort.
inline constexpr std::size_t kMaxScansToExplode = 200;

// The scans that read what `access` reads, each in `sort` order, for a SORT_MERGE to merge:
// `access` itself when it gives the sort; else, as mongod's explodeForSort, one scan per
// combination of the values its bounds pin the leading key fields to (an $in), in the order the
// scans read them, when the key fields right after those give the sort and the scans are at most
// kMaxScansToExplode; else nullopt (a wildcard index is never merged; a multikey one, or one of
// another collation, never splits).
std::optional<std::vector<IndexAccess>> ScansGivingSort(const IndexAccess& access,
                                                        const query::SortSpec& sort);

// The scan of `index` for a hint: its bounds for `filter`, else its whole key space. A wildcard
// index has no whole key space to read: BadValue when `filter` bounds none of its paths.
StatusWith<IndexAccess> HintedIndexAccess(const catalog::IndexInfo& index,
                                          const query::Matcher* filter,
                                          const query::SortSpec& sort);

// The scan of hinted `index` over `bounds` made by the caller (find's min and max), forward, or
// backward when that gives `sort`.
StatusWith<IndexAccess> BoundedIndexAccess(const catalog::IndexInfo& index, IndexBounds bounds,
                                           const query::SortSpec& sort);

}  // namespace quarry::exec
