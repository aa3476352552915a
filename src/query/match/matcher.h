// The query filter language ({a: {$gt: 1}, $or: [...]}) parsed once into a tree and matched
// against documents, with MongoDB's semantics for arrays, nulls and type brackets.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/string_comparator.h"
#include "bson/value.h"

namespace quarry::text {
struct TextSearch;  // text/search.h
}  // namespace quarry::text

namespace quarry::query {

class MatchNode;  // matcher_internal.h

// What a successful match learned, for the positional `$` update and projection operators.
struct MatchDetails {
  // Index of the element of the outermost array through which a path condition matched (the
  // last one to match, when several did, as mongod does); empty when no array was involved.
  std::optional<std::size_t> array_index;
};

// One equality condition of a filter, for seeding an upserted document: {a: 1} and
// {a: {$eq: 1}} and {$and: [{a: 1}]} and {a: {$in: [1]}} each give path "a", value 1.
struct EqualityCondition {
  std::string path;
  bson::ValueView value;  // points into the Matcher's copy of the filter
};

// kIn is {$in: [...]} without regexes; kRegex is /re/, {$regex: ...} or a regex of $all.
// kExists ({$exists: true}) and kElemMatch ($elemMatch on values) come from
// Matcher::BoundingConjuncts only.
enum class CompareOp { kEq, kLt, kLte, kGt, kGte, kIn, kRegex, kExists, kElemMatch };

// A condition every matching document satisfies: a top-level conjunct of the filter (through
// $and; never through $or, $nor, $not or $elemMatch), as planners read them to find point
// lookups and index bounds. Its strings and `value` point into the Matcher: keep it alive.
struct PathCondition {
  std::string_view path;  // dotted
  CompareOp op = CompareOp::kEq;
  bson::ValueView value;           // the operand; for kIn the array of values; absent for kRegex
  std::string_view regex_pattern;  // kRegex only
  std::string_view regex_options;  // kRegex only
  // From BoundingConjuncts only: documents match when the condition does not hold ($ne, $nin,
  // {$not: {$gt: 5}}, {$exists: false}).
  bool negated = false;
  // kElemMatch: the conditions one array element meets, each with an empty path.
  std::vector<PathCondition> element_conditions;
  // From BoundingConjuncts, for a condition inside $elemMatch on documents: that $elemMatch
  // (the innermost), to tell which conditions one element meets together, and its path.
  const void* elem_match = nullptr;
  std::string_view elem_match_path;
};

// A parsed filter. Immutable after Parse; copies share the parsed tree, so a Matcher can be
// copied freely and used from several threads at once.
class Matcher {
 public:
  // Parses `filter`. Every error is reported here (BadValue with mongod's texts, e.g.
  // "unknown operator: $foo", "$in needs an array"); Matches cannot fail. The filter's bytes
  // are copied.
  static StatusWith<Matcher> Parse(bson::DocumentView filter);
  // As Parse, with a command's `let` document ({id: 1}) defining variables that $expr reads as
  // $$id. Fails as mongod for bad variable names.
  static StatusWith<Matcher> Parse(bson::DocumentView filter, bson::DocumentView let);
  // As Parse, with strings compared under `collator` (null: the simple collation) in every
  // comparison of the filter ($eq, $in, ranges, equality to documents and arrays, and $expr's
  // comparisons); $regex ignores it, as in mongod.
  static StatusWith<Matcher> Parse(bson::DocumentView filter, bson::DocumentView let,
                                   std::shared_ptr<const bson::StringComparator> collator);

  // Parses the condition on one value, as the right-hand side of a filter field: 5, /re/,
  // {$gt: 1, $lt: 9}, {$elemMatch: ...}; a document whose first key is not an operator is an
  // equality to that document. MatchesValue then tests one value the way a filter tests a
  // field's value (arrays match if an element or the whole array does). Used by $pull and
  // arrayFilters-like callers.
  static StatusWith<Matcher> ParseValueCondition(
      bson::ValueView condition, std::shared_ptr<const bson::StringComparator> collator = nullptr);

  // True if `doc` satisfies the filter. `details`, if given, receives the array index for the
  // positional operator (only meaningful when this returns true). Fails when the filter cannot
  // be decided for `doc`: a $expr whose expression fails (a $divide by zero, say) or a regular
  // expression past its match limit; a query fails with it, as mongod's does.
  StatusWith<bool> Evaluate(bson::DocumentView doc, MatchDetails* details = nullptr) const;

  // Evaluate for callers that answer a bool (a partial index's filter, $pull's condition): a
  // failure is reported to the thread's EvaluationErrorSink, if one is installed
  // (query/value/evaluation_error.h), and the document does not match.
  bool Matches(bson::DocumentView doc, MatchDetails* details = nullptr) const;

  // For a Matcher from ParseValueCondition: true if `value` satisfies the condition. For one from
  // Parse: true if `value` is a document that matches.
  bool MatchesValue(bson::ValueView value, MatchDetails* details = nullptr) const;

  // The equality conditions an upsert copies into the new document, in filter order (through
  // $and, never through $or/$nor/$not/$elemMatch). Fails with NotSingleValueField (54) when a
  // path has two equalities ("cannot infer query fields to set, path 'a' is matched twice") or
  // one path is a prefix of another ("cannot infer query fields to set, both paths 'a' and
  // 'a.b' are matched"). Values are views into this Matcher's filter: keep it alive.
  StatusWith<std::vector<EqualityCondition>> UpsertEqualities() const;

  // The filter's top-level comparisons ({a: 1}, {a: {$gt: 1}}, {a: {$in: [1, 2]}}, {a: /^x/},
  // those inside $and and $all), in filter order. A filter that matches only documents satisfying
  // all of them may have other conditions too: callers still match each document.
  std::vector<PathCondition> Conjuncts() const;

  // Conjuncts() and the other conditions index bounds are built from, as mongod's planner reads
  // them: negations ($ne, $nin, $not of one comparison, $exists: false) with `negated` set,
  // {$exists: true}, $elemMatch on values (kElemMatch), and the conditions inside $elemMatch on
  // documents ({a: {$elemMatch: {b: 1}}} gives "a.b" equal to 1). Only for bounds: a negated
  // condition is no point lookup.
  std::vector<PathCondition> BoundingConjuncts() const;

  // True for an empty filter {} (everything matches), so callers can skip matching.
  bool MatchesEverything() const { return matches_everything_; }

  // The filter as given.
  bson::DocumentView filter() const;

  // The filter's $text condition, or null. A filter with one is answered through a text index:
  // the document passes the rest of it, RestWithoutText(), and the search.
  const text::TextSearch* text_search() const { return text_.get(); }
  // The filter without its $text condition (a matcher of everything when that was all of it).
  StatusWith<Matcher> RestWithoutText() const;

  // The collation the filter compares strings under; null for the simple collation.
  const bson::StringComparator* collator() const { return collator_.get(); }
  const std::shared_ptr<const bson::StringComparator>& shared_collator() const { return collator_; }

 private:
  Matcher() = default;

  std::shared_ptr<const bson::Document> filter_;
  std::shared_ptr<const MatchNode> root_;
  std::shared_ptr<const bson::StringComparator> collator_;  // outlives root_'s predicates
  std::shared_ptr<const text::TextSearch> text_;
  std::shared_ptr<const bson::Document> let_;  // for RestWithoutText
  bool matches_everything_ = false;
  bool value_condition_ = false;  // from ParseValueCondition
};

}  // namespace quarry::query
