// The intervals of one key field's values that a filter condition lets through, as index bounds
// are built from them (exec/index_bounds.h). Folder-private.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "exec/index_bounds.h"
#include "exec/index_descriptor.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// One end of an interval of a field's encoded values, in the field's index order (descending
// fields' bytes inverted).
struct Edge {
  std::string bytes;      // a value's whole encoding, or a prefix of several (a type's tag)
  bool after = false;     // after every encoding that starts with `bytes`; else before all of them
  std::string shown;      // the bound as mongod's explain prints it
  bool inclusive = true;  // how explain brackets it: "[" or "]" rather than "(" or ")"
};

struct FieldInterval {
  Edge low;
  Edge high;
  bool point = false;  // exactly one value: low and high are before and after its encoding
};

// Where `edge` lies among keys that start with `prefix` (whole encodings of earlier fields), as
// a byte string: every key that starts with `prefix` and lies before the edge compares below it,
// every other such key at or above it, whatever bytes follow.
std::string EdgePosition(std::string_view prefix, const Edge& edge);

// The values of a field that `condition` (on the field's path) can match, as sorted, disjoint
// intervals in index order: type-bracketed as mongod's bounds ({$gt: 5} is (5, inf.0]); null
// also reads undefined (missing fields are indexed as null, and undefined matches null); an
// array reads itself and its first element (a document whose array equals it has that element
// as a key; an empty one, undefined). nullopt when the condition cannot bound a scan: a range
// over an array value. Under an index's `collator` (null: simple) string values are placed by
// their comparison keys, and a regex reads every string: a literal prefix bounds no range of
// comparison keys.
// {$exists: true} reads every value. Not for negated conditions nor kElemMatch
// (BoundingIntervalsFor).
std::optional<std::vector<FieldInterval>> IntervalsFor(const query::PathCondition& condition,
                                                       bool descending,
                                                       const bson::StringComparator* collator);

// As IntervalsFor, for every condition of Matcher::BoundingConjuncts, as mongod bounds them
// (index_intervals_logical.cc):
//  - a negation reads the complement of its condition's intervals ({$ne: 5} reads [MinKey, 5)
//    and (5, MaxKey]), which hold every key of a document that meets it, since the intervals of
//    a comparison hold exactly the values that meet it. Not for a regex, $elemMatch, comparisons
//    with arrays or ranges to MinKey or MaxKey, nor for comparisons with null when the field is
//    `multikey` ({a: []} meets {$ne: null} with the key undefined);
//  - {$exists: false} reads [null, null], the key of a missing field (not for sparse indexes,
//    which the caller checks);
//  - $elemMatch on values reads the intersection of its element conditions' intervals.
// nullopt when the condition cannot bound a scan.
std::optional<std::vector<FieldInterval>> BoundingIntervalsFor(
    const query::PathCondition& condition, bool descending, const bson::StringComparator* collator,
    bool multikey);

// The values both `a` and `b` hold (each sorted and disjoint in index order), sorted and
// disjoint. An interval is a point when both its edges come from one point.
std::vector<FieldInterval> Intersect(const std::vector<FieldInterval>& a,
                                     const std::vector<FieldInterval>& b);

// The one value `value`, with simple string order.
FieldInterval PointOf(bson::ValueView value, bool descending);

// Whether `condition` matches a document that lacks the field ({$eq: null}, {$lt: MaxKey},
// {$ne: 5}, {$exists: false}...).
bool MatchesMissing(const query::PathCondition& condition);

// Every value: [MinKey, MaxKey] (explain prints [MaxKey, MinKey] for a descending field).
FieldInterval WholeField(bool descending);

// `interval` as mongod's explain prints it: "[1, 5)", "(\"a\", {})", "[MaxKey, MinKey]".
std::string ShowInterval(const FieldInterval& interval);

// A value as mongod prints an index bound (BSONElement::toString without its name): 5, 5.0,
// inf.0, "s", null, MinKey, new Date(0), ObjectId('…'), { a: 1 }, [ 1, 2 ], /re/i.
std::string ShowBound(bson::ValueView value);

// The literal prefix that every string matching /pattern/options starts with, when the pattern
// is anchored at the start ("^abc", "\Aabc") and has no alternation; empty when there is none.
// mongod's IndexBoundsBuilder::simpleRegex, made safe for quantifiers after multi-byte
// characters and for {n,m}.
std::string RegexPrefix(std::string_view pattern, std::string_view options);

// Whole-key intervals of an index with key fields `fields`: every combination of the leading
// bounded fields' points, each followed by the last bounded field's intervals. The edges of those
// take in every key that continues them, so the fields after it are read whole.
// REQUIRES: 0 < bounded.size() <= fields.size(); all but the last of `bounded` are points.
IndexBounds AssembleBounds(const std::vector<IndexField>& fields,
                           const std::vector<std::vector<FieldInterval>>& bounded);

}  // namespace quarry::exec
