// The intervals of negations, $exists and $elemMatch on values, built from those of the
// comparisons they hold (index_intervals.cc) as mongod's IndexBoundsBuilder builds them: a
// negation reads the complement, $elemMatch the intersection.
#include <algorithm>
#include <utility>

#include "exec/index_intervals_internal.h"

namespace quarry::exec {
namespace {

using query::CompareOp;

const bson::ValueView kNull(bson::Type::kNull, nullptr, 0);

bool IsNull(bson::ValueView value) { return value.type() == bson::Type::kNull; }

// Whether `condition` compares with null: its intervals then hold the keys of missing fields
// and empty arrays, which a document of a multikey index may have while it meets the negation.
bool ComparesWithNull(const query::PathCondition& condition) {
  if (condition.op != CompareOp::kIn) return IsNull(condition.value);
  const bson::DocumentView values = condition.value.Document();
  return std::any_of(values.begin(), values.end(),
                     [](const bson::Element& element) { return IsNull(element.value); });
}

// mongod does not invert comparisons with arrays: an array's keys are its elements, so the
// intervals of {$eq: [1, 2]} hold the key 1 of documents that do not equal it.
bool ComparesWithArray(const query::PathCondition& condition) {
  if (condition.op != CompareOp::kIn) return condition.value.type() == bson::Type::kArray;
  const bson::DocumentView values = condition.value.Document();
  return std::any_of(values.begin(), values.end(), [](const bson::Element& element) {
    return element.value.type() == bson::Type::kArray;
  });
}

// {$nin: [null, []]}, the one negation of an array mongod bounds: no document that meets it has
// an array at the path without elements, where keys would hold what the filter does not see.
bool NullAndEmptyArray(const query::PathCondition& condition) {
  if (condition.op != CompareOp::kIn) return false;
  bool null = false;
  bool empty_array = false;
  int count = 0;
  for (const bson::Element& element : condition.value.Document()) {
    ++count;
    null = null || IsNull(element.value);
    empty_array = empty_array ||
                  (element.value.type() == bson::Type::kArray && element.value.Document().empty());
  }
  return count == 2 && null && empty_array;
}

// A range to MinKey or MaxKey reads every key of a multikey index and so cannot be inverted;
// mongod inverts none.
bool RangeToKeyLimit(const query::PathCondition& condition) {
  const bool range = condition.op == CompareOp::kLt || condition.op == CompareOp::kLte ||
                     condition.op == CompareOp::kGt || condition.op == CompareOp::kGte;
  const bson::Type type = condition.value.type();
  return range && (type == bson::Type::kMinKey || type == bson::Type::kMaxKey);
}

// The keys between `low` and `high`, neither included, as index positions (EdgePosition).
struct Gap {
  std::string low;
  std::string high;
};

// Whether the interval from `low` to `high` holds no key. Undefined and null are adjacent in the
// order with no value between them, though their encodings leave room.
bool HoldsNoKey(const Edge& low, const Edge& high, const Gap& undefined_to_null) {
  const std::string from = EdgePosition("", low);
  const std::string to = EdgePosition("", high);
  if (from >= to) return true;
  return from >= undefined_to_null.low && to <= undefined_to_null.high;
}

// The edge that bounds the neighbouring interval: the same place, bracketed the other way.
Edge Across(Edge edge) {
  edge.inclusive = !edge.inclusive;
  return edge;
}

// The values of a field outside `intervals` (sorted and disjoint in index order).
std::vector<FieldInterval> Complement(const std::vector<FieldInterval>& intervals,
                                      bool descending) {
  const FieldInterval whole = WholeField(descending);
  const FieldInterval undefined =
      PointOf(bson::ValueView(bson::Type::kUndefined, nullptr, 0), descending);
  const FieldInterval null = PointOf(kNull, descending);
  const Gap undefined_to_null =
      descending ? Gap{EdgePosition("", null.high), EdgePosition("", undefined.low)}
                 : Gap{EdgePosition("", undefined.high), EdgePosition("", null.low)};
  std::vector<FieldInterval> out;
  Edge low = whole.low;
  for (const FieldInterval& interval : intervals) {
    Edge high = Across(interval.low);
    if (!HoldsNoKey(low, high, undefined_to_null)) out.push_back({low, std::move(high), false});
    low = Across(interval.high);
  }
  if (!HoldsNoKey(low, whole.high, undefined_to_null)) out.push_back({low, whole.high, false});
  return out;
}

std::optional<std::vector<FieldInterval>> NegatedIntervals(const query::PathCondition& condition,
                                                           bool descending,
                                                           const bson::StringComparator* collator,
                                                           bool multikey) {
  if (condition.op == CompareOp::kExists) {
    // A missing field's key is null. (An empty array at the end of the path is undefined, but
    // its field exists.)
    return std::vector<FieldInterval>{PointOf(kNull, descending)};
  }
  if (condition.op == CompareOp::kRegex || condition.op == CompareOp::kElemMatch ||
      (ComparesWithArray(condition) && !NullAndEmptyArray(condition)) ||
      RangeToKeyLimit(condition) || (multikey && ComparesWithNull(condition))) {
    return std::nullopt;
  }
  query::PathCondition positive = condition;
  positive.negated = false;
  std::optional<std::vector<FieldInterval>> intervals =
      IntervalsFor(positive, descending, collator);
  if (!intervals.has_value()) return std::nullopt;
  return Complement(*intervals, descending);
}

// One element meets every condition, so its key lies in all their intervals, even in a multikey
// index. Conditions that bound nothing are left out; so are nested $elemMatch, whose array is a
// key whole.
std::optional<std::vector<FieldInterval>> ElemMatchIntervals(
    const query::PathCondition& condition, bool descending,
    const bson::StringComparator* collator) {
  std::optional<std::vector<FieldInterval>> both;
  for (const query::PathCondition& element_condition : condition.element_conditions) {
    if (element_condition.op == CompareOp::kElemMatch) continue;
    // An element is never missing, so {$ne: null} inverts well even in a multikey index.
    std::optional<std::vector<FieldInterval>> intervals =
        BoundingIntervalsFor(element_condition, descending, collator, /*multikey=*/false);
    if (!intervals.has_value()) continue;
    both = both.has_value() ? Intersect(*both, *intervals) : std::move(*intervals);
  }
  return both;
}

}  // namespace

std::optional<std::vector<FieldInterval>> BoundingIntervalsFor(
    const query::PathCondition& condition, bool descending, const bson::StringComparator* collator,
    bool multikey) {
  if (condition.negated) return NegatedIntervals(condition, descending, collator, multikey);
  if (condition.op == CompareOp::kElemMatch) {
    return ElemMatchIntervals(condition, descending, collator);
  }
  return IntervalsFor(condition, descending, collator);
}

}  // namespace quarry::exec
