// The intervals of one key field that a condition reads, as mongod's IndexBoundsBuilder makes
// them: points for equalities, type-bracketed ranges for comparisons, prefixes for regexes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "bson/builder.h"
#include "exec/index_intervals_internal.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

using query::CompareOp;

// The values that bound type brackets.
bson::ValueView Limit(std::string_view name) {
  static const bson::Document limits = [] {
    bson::ObjectId all_ones;
    std::fill(std::begin(all_ones.bytes), std::end(all_ones.bytes), std::uint8_t{0xFF});
    bson::DocumentBuilder b;
    b.AppendMinKey("min").AppendMaxKey("max").AppendUndefined("undefined");
    b.AppendDouble("-inf", -std::numeric_limits<double>::infinity());
    b.AppendDouble("inf", std::numeric_limits<double>::infinity());
    b.AppendObjectId("oid0", bson::ObjectId()).AppendObjectId("oid1", all_ones);
    b.AppendBool("false", false).AppendBool("true", true);
    b.AppendDate("date0", std::numeric_limits<std::int64_t>::min());
    b.AppendDate("date1", std::numeric_limits<std::int64_t>::max());
    b.AppendTimestamp("ts0", 0).AppendTimestamp("ts1", std::numeric_limits<std::uint64_t>::max());
    return std::move(b).Finish();
  }();
  return limits.Get(name);
}

// Strings order by this collation in the index being bounded (null: simple).
using Collator = const bson::StringComparator*;

// The edge just before the encoding of `value`, or just after it.
Edge At(bson::ValueView value, bool after, bool inclusive, Collator collator = nullptr) {
  return Edge{storage::EncodeIndexKey(value, collator), after, ShowBound(value), inclusive};
}

FieldInterval Point(bson::ValueView value, Collator collator) {
  return FieldInterval{At(value, false, true, collator), At(value, true, true, collator), true};
}

FieldInterval Range(std::pair<Edge, Edge> edges) {
  return FieldInterval{std::move(edges.first), std::move(edges.second), false};
}

// The values of `type`'s canonical type, bounded as mongod bounds a comparison: by the type's
// smallest and largest values where it has them, else up to the next type's smallest.
std::pair<Edge, Edge> Bracket(bson::Type type) {
  if (bson::IsNumber(type)) {
    // NaN sorts below -inf but matches no range, so mongod leaves it out.
    return {At(Limit("-inf"), false, true), At(Limit("inf"), true, true)};
  }
  switch (type) {
    case bson::Type::kObjectId:
      return {At(Limit("oid0"), false, true), At(Limit("oid1"), true, true)};
    case bson::Type::kBool:
      return {At(Limit("false"), false, true), At(Limit("true"), true, true)};
    case bson::Type::kDate:
      return {At(Limit("date0"), false, true), At(Limit("date1"), true, true)};
    case bson::Type::kTimestamp:
      return {At(Limit("ts0"), false, true), At(Limit("ts1"), true, true)};
    default:
      break;
  }
  std::string low_shown(bson::TypeAlias(type));
  std::string high_shown = low_shown;
  if (type == bson::Type::kString || type == bson::Type::kSymbol) {
    low_shown = "\"\"";
    high_shown = "{}";
  } else if (type == bson::Type::kDocument) {
    low_shown = "{}";
    high_shown = "[]";
  } else if (type == bson::Type::kBinary) {
    low_shown = "BinData(0, )";
    high_shown = "ObjectId('000000000000000000000000')";
  }
  auto [first, second] = storage::KeyTypeBracket(type);
  return {Edge{std::move(first), false, std::move(low_shown), true},
          Edge{std::move(second), false, std::move(high_shown), false}};
}

bool IsNaN(bson::ValueView value) {
  return (value.type() == bson::Type::kDouble || value.type() == bson::Type::kDecimal128) &&
         std::isnan(value.AsDouble());
}

// The keys a document equal to `value` has: null also matches undefined and missing fields
// (indexed as undefined and null); a document whose array equals `value` has its first element
// as a key (undefined for []), unless the array is itself an element (then it is the key).
void AppendEqualityPoints(bson::ValueView value, Collator collator,
                          std::vector<FieldInterval>* out) {
  if (value.type() == bson::Type::kNull) {
    out->push_back(Point(Limit("undefined"), collator));
  } else if (value.type() == bson::Type::kArray) {
    const bson::DocumentView elements = value.Document();
    out->push_back(
        Point(elements.empty() ? Limit("undefined") : elements.begin()->value, collator));
  }
  out->push_back(Point(value, collator));
}

// A comparison within the operand's type bracket, where MinKey and MaxKey bound every bracket
// and null's takes in undefined and missing (query/match's ComparisonPredicate). A range over an
// array (the array whole, as the filter compares it) is no condition on the keys, its elements.
std::optional<std::vector<FieldInterval>> ComparisonIntervals(CompareOp op, bson::ValueView rhs,
                                                              Collator collator) {
  const bool below = op == CompareOp::kLt || op == CompareOp::kLte;
  const bool inclusive = op == CompareOp::kLte || op == CompareOp::kGte;
  std::vector<FieldInterval> out;
  if (rhs.type() == bson::Type::kArray) return std::nullopt;
  if (rhs.type() == bson::Type::kNull || IsNaN(rhs) ||
      (rhs.type() == bson::Type::kMinKey && below) ||
      (rhs.type() == bson::Type::kMaxKey && !below)) {
    // Only equal values can match.
    if (inclusive) AppendEqualityPoints(rhs, collator, &out);
    return out;
  }
  if (rhs.type() == bson::Type::kMinKey || rhs.type() == bson::Type::kMaxKey) {
    // Every key, MaxKey too for {$lt: MaxKey}: a whole array such as [MaxKey] is below MaxKey,
    // and its keys are its elements.
    out.push_back(WholeField(false));
    return out;
  }
  std::pair<Edge, Edge> edges = Bracket(rhs.type());
  if (below) {
    edges.second = At(rhs, inclusive, inclusive, collator);
  } else {
    edges.first = At(rhs, !inclusive, inclusive, collator);
  }
  out.push_back(Range(std::move(edges)));
  return out;
}

// Strings with the regex's literal prefix (or all strings), and regex values equal to it. Under a
// collation every string: strings with one prefix have no common comparison-key prefix.
std::vector<FieldInterval> RegexIntervals(std::string_view pattern, std::string_view options,
                                          Collator collator) {
  std::vector<FieldInterval> out;
  const std::string prefix = collator == nullptr ? RegexPrefix(pattern, options) : std::string();
  if (prefix.empty()) {
    out.push_back(Range(Bracket(bson::Type::kString)));
  } else {
    // Explain shows the first string past the prefix, as mongod does: "abc" reads ["abc", "abd").
    std::string next = prefix;
    while (!next.empty() && next.back() == '\xFF') next.pop_back();
    if (!next.empty()) next.back() = static_cast<char>(next.back() + 1);
    const std::string bytes = storage::StringPrefixKey(prefix);
    out.push_back(FieldInterval{Edge{bytes, false, "\"" + prefix + "\"", true},
                                Edge{bytes, true, next.empty() ? "{}" : "\"" + next + "\"", false},
                                false});
  }
  bson::DocumentBuilder regex;
  regex.AppendRegex("r", pattern, options);
  out.push_back(Point(std::move(regex).Finish().Get("r"), collator));
  return out;
}

// The same edge in a descending field: inverted bytes, and what lay before them lies after.
Edge Flipped(Edge edge) {
  for (char& c : edge.bytes) c = static_cast<char>(~c);
  edge.after = !edge.after;
  return edge;
}

FieldInterval Reversed(FieldInterval interval) {
  return FieldInterval{Flipped(std::move(interval.high)), Flipped(std::move(interval.low)),
                       interval.point};
}

// Sorts `intervals` in index order and merges those that overlap (equal $in values).
void SortAndMerge(std::vector<FieldInterval>* intervals) {
  struct Placed {
    std::string low;
    std::string high;
    FieldInterval interval;
  };
  std::vector<Placed> placed;
  for (FieldInterval& interval : *intervals) {
    std::string low = EdgePosition("", interval.low);
    std::string high = EdgePosition("", interval.high);
    placed.push_back(Placed{std::move(low), std::move(high), std::move(interval)});
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.low != b.low ? a.low < b.low : a.high < b.high;
  });
  intervals->clear();
  std::string last_low;
  std::string last_high;
  for (Placed& next : placed) {
    if (!intervals->empty() && (next.low == last_low || next.low < last_high)) {
      if (next.high > last_high) {
        intervals->back().high = std::move(next.interval.high);
        intervals->back().point = false;
        last_high = std::move(next.high);
      }
      continue;
    }
    last_low = std::move(next.low);
    last_high = std::move(next.high);
    intervals->push_back(std::move(next.interval));
  }
}

}  // namespace

std::string EdgePosition(std::string_view prefix, const Edge& edge) {
  std::string position(prefix);
  position += edge.bytes;
  if (edge.after) {
    // The first byte string above every string that starts with `position`. A tag byte is never
    // 0xFF, so one byte always remains to increment.
    while (!position.empty() && position.back() == '\xFF') position.pop_back();
    if (!position.empty()) position.back() = static_cast<char>(position.back() + 1);
  }
  return position;
}

std::optional<std::vector<FieldInterval>> IntervalsFor(const query::PathCondition& condition,
                                                       bool descending,
                                                       const bson::StringComparator* collator) {
  std::vector<FieldInterval> intervals;
  switch (condition.op) {
    case CompareOp::kEq:
      AppendEqualityPoints(condition.value, collator, &intervals);
      break;
    case CompareOp::kIn:
      for (const bson::Element& element : condition.value.Document()) {
        AppendEqualityPoints(element.value, collator, &intervals);
      }
      break;
    case CompareOp::kLt:
    case CompareOp::kLte:
    case CompareOp::kGt:
    case CompareOp::kGte: {
      std::optional<std::vector<FieldInterval>> range =
          ComparisonIntervals(condition.op, condition.value, collator);
      if (!range.has_value()) return std::nullopt;
      intervals = std::move(*range);
      break;
    }
    case CompareOp::kRegex:
      intervals = RegexIntervals(condition.regex_pattern, condition.regex_options, collator);
      break;
    case CompareOp::kExists:
      intervals.push_back(WholeField(false));
      break;
    case CompareOp::kElemMatch:
      return std::nullopt;
  }
  if (descending) {
    for (FieldInterval& interval : intervals) interval = Reversed(std::move(interval));
  }
  SortAndMerge(&intervals);
  return intervals;
}

bool MatchesMissing(const query::PathCondition& condition) {
  if (condition.negated) {
    if (condition.op == CompareOp::kExists) return true;
    query::PathCondition positive = condition;
    positive.negated = false;
    return !MatchesMissing(positive);
  }
  const bson::Type type = condition.value.type();
  switch (condition.op) {
    case CompareOp::kEq:
      return type == bson::Type::kNull;
    case CompareOp::kLte:
      return type == bson::Type::kNull || type == bson::Type::kMaxKey;
    case CompareOp::kGte:
      return type == bson::Type::kNull || type == bson::Type::kMinKey;
    case CompareOp::kLt:
      return type == bson::Type::kMaxKey;
    case CompareOp::kGt:
      return type == bson::Type::kMinKey;
    case CompareOp::kIn:
      for (const bson::Element& element : condition.value.Document()) {
        if (element.value.type() == bson::Type::kNull) return true;
      }
      return false;
    case CompareOp::kRegex:
    case CompareOp::kExists:
    case CompareOp::kElemMatch:
      return false;
  }
  return true;
}

FieldInterval PointOf(bson::ValueView value, bool descending) {
  FieldInterval point = Point(value, nullptr);
  return descending ? Reversed(std::move(point)) : point;
}

FieldInterval WholeField(bool descending) {
  FieldInterval whole{At(Limit("min"), false, true), At(Limit("max"), true, true), false};
  return descending ? Reversed(std::move(whole)) : whole;
}

}  // namespace quarry::exec
