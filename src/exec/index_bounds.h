// What an index scan reads for a filter: intervals of encoded keys, built from the filter's
// conjuncts as mongod's query planner builds index bounds.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "exec/index_descriptor.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// An interval of encoded keys (the keys IndexDescriptor::KeysOf makes), in index order. Bounds
// made here are always [start, end): start_inclusive is true and end_inclusive false. Whether a
// key lies inside does not change when bytes are appended to it, so a scan can compare the
// stored entries (which end with the document's encoded _id in a non-unique index) with start
// and end directly.
struct KeyInterval {
  std::string start;
  bool start_inclusive = true;
  std::string end;
  bool end_inclusive = true;

  bool Contains(std::string_view key) const {
    const int from_start = key.compare(start);
    const int to_end = key.compare(end);
    return (from_start > 0 || (from_start == 0 && start_inclusive)) &&
           (to_end < 0 || (to_end == 0 && end_inclusive));
  }
};

struct IndexBounds {
  std::vector<KeyInterval> intervals;  // sorted, disjoint

  // Each key field's path and intervals as mongod's explain prints them ("[1, 1]",
  // "(5, inf.0]", "[MinKey, MaxKey]"), in key pattern order.
  struct Field {
    std::string path;
    std::vector<std::string> intervals;
  };
  std::vector<Field> fields;

  // For explain: {"a": ["[1, 1]"], "b": ["[MinKey, MaxKey]"]} as mongod prints indexBounds.
  bson::Document ToExplain() const;

  // How many leading fields are pinned to a single value in every interval (an equality prefix),
  // so a planner can tell whether the index also provides a sort on the following fields: with
  // one interval it does; with several ($in), each interval is sorted on its own and a planner
  // merges them (mongod's SORT_MERGE).
  std::size_t equality_prefix = 0;
};

// Bounds for scanning `index` for documents `filter` may match, from the filter's conjuncts
// (query::Matcher::BoundingConjuncts()): equality and $in on a prefix of the key fields, then a
// range, regex, negation, $exists or $elemMatch on the next field (index_intervals_internal.h's
// BoundingIntervalsFor), then the whole key space for the remaining fields. The caller
// re-checks the whole filter on every fetched document, so bounds may be wider than the filter,
// never narrower:
//  - comparisons are type-bracketed as mongod does ({$gt: 5} reads numbers above 5 only,
//    {$lt: "m"} strings only); {a: null} also reads undefined and the null key, which holds
//    missing fields; equality to an array also reads its first element; a regex reads the
//    strings that start with its literal prefix ({a: /^abc/} reads ["abc", "abd")), all
//    strings when it has none, and regex values equal to it;
//  - of several conditions on one field, a `multikey` index (some document has an array on a
//    key path) uses the first equality or $in, else the first other condition that does not
//    read every key ({$exists: true} does): a document's array may
//    satisfy two ranges with two elements, none in both. A non-multikey index intersects them
//    all ({$gte: 3, $lt: 5} reads [3, 5)); $elemMatch on values intersects its own conditions
//    in either. Fields that share their first path component with an
//    earlier bounded field ("x.a", "x.b") are left whole: one array may pair their values in
//    other keys;
//  - conditions that match a missing field ({a: null}, {$lt: MaxKey}, {$ne: 5}) are not used on
//    a sparse index (it skips such documents) nor on a path with a numeric component ("a.0.b": a
//    document's array can make the filter see a missing field where its keys hold none); a
//    sparse index takes no negation but {$ne: null}, a positional path no negation nor
//    $elemMatch;
//  - an $in product over several fields stops growing at 65,536 intervals (later fields whole).
// nullopt when the filter has no usable condition on the first key field (a planner then does
// not use the index for filtering). Does not look at a partial index's filter: a planner uses a
// partial index only for filters that imply it.
std::optional<IndexBounds> BoundsFor(const IndexDescriptor& index, const query::Matcher& filter,
                                     bool multikey = true);

// Whether BoundsFor turns equalities to point values (exec/id_point.h) on every key field of
// `index` into the one key made of those values: no key field names an array position, and no
// two share their first component (one array could hold both, and BoundsFor then bounds only
// the first).
bool PointKeysAreExact(const IndexDescriptor& index);

// `bounds` split into one IndexBounds per combination of the values its equality prefix pins
// the leading key fields to (an $in's points), in index order, each with that combination's
// intervals and explain strings: each split reads its keys in the order of the fields after the
// prefix, which a planner can merge (mongod's explodeForSort). nullopt when there is no equality
// prefix or its intervals are not one group per combination.
std::optional<std::vector<IndexBounds>> SplitOnEqualityPrefix(const IndexBounds& bounds);

// The whole key space of `index`, for scans that use it only for order. A sparse or partial
// index does not hold every document.
IndexBounds FullBounds(const IndexDescriptor& index);

}  // namespace quarry::exec
