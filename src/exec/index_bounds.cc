// Index bounds from a filter's conjuncts: the intervals of each bounded key field
// (index_intervals.cc), combined into intervals of whole keys.
#include "exec/index_bounds.h"

#include <algorithm>
#include <utility>

#include "bson/builder.h"
#include "bson/path.h"
#include "exec/index_intervals_internal.h"
#include "query/match/field_path.h"

namespace quarry::exec {
namespace {

// Beyond this many combinations of $in values, later fields are read whole.
constexpr std::size_t kMaxIntervals = 65536;

std::string_view FirstComponent(std::string_view path) { return path.substr(0, path.find('.')); }

// Whether a component after the first may name an array position ("a.0.b").
bool HasPositionalComponent(std::string_view path) {
  bool first = true;
  for (const bson::PathComponent& part : bson::PathComponents(path)) {
    if (!first && query::ArrayIndexOf(part.name).has_value()) return true;
    first = false;
  }
  return false;
}

bool AllPoints(const std::vector<FieldInterval>& intervals) {
  return std::all_of(intervals.begin(), intervals.end(),
                     [](const FieldInterval& interval) { return interval.point; });
}

bool IsNotEqualNull(const query::PathCondition& condition) {
  return condition.negated && condition.op == query::CompareOp::kEq &&
         condition.value.type() == bson::Type::kNull;
}

bool ReadsWholeField(const std::vector<FieldInterval>& intervals, bool descending) {
  const FieldInterval whole = WholeField(descending);
  return intervals.size() == 1 &&
         EdgePosition({}, intervals.front().low) == EdgePosition({}, whole.low) &&
         EdgePosition({}, intervals.front().high) == EdgePosition({}, whole.high);
}

// Where the index holds a field's keys.
struct FieldPlace {
  bool sparse = false;      // documents without any key field have no entry
  bool positional = false;  // the path has a numeric component after the first
  bool multikey = false;    // some document has an array on the path
};

// The intervals that bound `field`; nullopt when no condition can. In a non-multikey index
// (no document has an array on the field's path), those of every condition on it, intersected.
// Otherwise the first equality or $in, else the first other condition that does not read every
// key: an array may meet two ranges with two elements, none in both. Conditions that match a
// missing field are passed over in a sparse index or on a positional path: such a document may
// have no key that shows it. As in mongod, a sparse index bounds no negation but
// {$ne: null}, and a positional path no negation nor $elemMatch (an array picked by position is
// one key whole).
// The $elemMatch on documents that every condition bounding a field lies in, if one does.
struct ElemMatchSource {
  const void* elem_match = nullptr;
  std::string_view path;

  static ElemMatchSource Of(const query::PathCondition& condition) {
    return {condition.elem_match, condition.elem_match_path};
  }
};

// With `required`, only conditions inside that $elemMatch are used. `*source` receives where
// the intervals came from.
std::optional<std::vector<FieldInterval>> FieldIntervals(
    const std::vector<query::PathCondition>& conditions, const IndexField& field,
    const bson::StringComparator* collator, FieldPlace place, const void* required,
    ElemMatchSource* source) {
  std::optional<std::vector<FieldInterval>> chosen;
  *source = ElemMatchSource();
  for (const query::PathCondition& condition : conditions) {
    if (condition.path != field.path) continue;
    if (required != nullptr && condition.elem_match != required) continue;
    if ((place.sparse || place.positional) && MatchesMissing(condition)) continue;
    if (place.sparse && condition.negated && !IsNotEqualNull(condition)) continue;
    if (place.positional && (condition.negated || condition.op == query::CompareOp::kElemMatch)) {
      continue;
    }
    std::optional<std::vector<FieldInterval>> intervals =
        BoundingIntervalsFor(condition, field.descending, collator, place.multikey);
    if (!intervals.has_value()) continue;
    if (!place.multikey) {
      if (!chosen.has_value()) {
        *source = ElemMatchSource::Of(condition);
      } else if (source->elem_match != condition.elem_match) {
        *source = ElemMatchSource();
      }
      chosen = chosen.has_value() ? Intersect(*chosen, *intervals) : std::move(*intervals);
      continue;
    }
    if (AllPoints(*intervals)) {
      *source = ElemMatchSource::Of(condition);
      return intervals;
    }
    if (!chosen.has_value() || ReadsWholeField(*chosen, field.descending)) {
      *source = ElemMatchSource::Of(condition);
      chosen = std::move(intervals);
    }
  }
  return chosen;
}

// Whether paths `a` and `b` both lie below the $elemMatch of `source` and part there ("x.b" and
// "x.c" below "x"): one element of its array then holds both fields' values, and the keys it
// makes pair them, so both may be bounded even where arrays are.
bool PartBelow(const ElemMatchSource& source, std::string_view a, std::string_view b) {
  if (source.elem_match == nullptr) return false;
  const std::string prefix = std::string(source.path) + ".";
  if (!a.starts_with(prefix) || !b.starts_with(prefix)) return false;
  return FirstComponent(a.substr(prefix.size())) != FirstComponent(b.substr(prefix.size()));
}

}  // namespace

std::vector<FieldInterval> Intersect(const std::vector<FieldInterval>& a,
                                     const std::vector<FieldInterval>& b) {
  std::vector<FieldInterval> out;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const std::string a_low = EdgePosition({}, a[i].low);
    const std::string a_high = EdgePosition({}, a[i].high);
    const std::string b_low = EdgePosition({}, b[j].low);
    const std::string b_high = EdgePosition({}, b[j].high);
    const bool low_from_a = a_low >= b_low;
    const bool high_from_a = a_high <= b_high;
    if ((low_from_a ? a_low : b_low) < (high_from_a ? a_high : b_high)) {
      FieldInterval both{low_from_a ? a[i].low : b[j].low, high_from_a ? a[i].high : b[j].high};
      if (low_from_a == high_from_a) both.point = low_from_a ? a[i].point : b[j].point;
      out.push_back(std::move(both));
    }
    if (a_high < b_high) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

bson::Document IndexBounds::ToExplain() const {
  bson::DocumentBuilder explain;
  for (const Field& field : fields) {
    explain.OpenArray(field.path);
    for (std::size_t interval_idx = 0; interval_idx < field.intervals.size(); ++interval_idx) {
      explain.AppendString(std::to_string(interval_idx), field.intervals[interval_idx]);
    }
    explain.Close();
  }
  return std::move(explain).Finish();
}

IndexBounds AssembleBounds(const std::vector<IndexField>& fields,
                           const std::vector<std::vector<FieldInterval>>& bounded) {
  IndexBounds bounds;
  std::vector<std::string> prefixes{std::string()};
  for (std::size_t field_idx = 0; field_idx + 1 < bounded.size(); ++field_idx) {
    std::vector<std::string> longer;
    longer.reserve(prefixes.size() * bounded[field_idx].size());
    for (const std::string& prefix : prefixes) {
      // A point's low edge holds the value's whole encoding.
      for (const FieldInterval& point : bounded[field_idx])
        longer.push_back(prefix + point.low.bytes);
    }
    prefixes = std::move(longer);
  }
  for (const std::string& prefix : prefixes) {
    for (const FieldInterval& interval : bounded.back()) {
      KeyInterval keys{EdgePosition(prefix, interval.low), true,
                       EdgePosition(prefix, interval.high), false};
      // (inf.0, inf.0] and the like read nothing.
      if (keys.start < keys.end) bounds.intervals.push_back(std::move(keys));
    }
  }
  bounds.equality_prefix = AllPoints(bounded.back()) ? bounded.size() : bounded.size() - 1;
  for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
    IndexBounds::Field shown{fields[field_idx].path, {}};
    if (field_idx < bounded.size()) {
      for (const FieldInterval& interval : bounded[field_idx]) {
        shown.intervals.push_back(ShowInterval(interval));
      }
    } else {
      shown.intervals.push_back(ShowInterval(WholeField(fields[field_idx].descending)));
    }
    bounds.fields.push_back(std::move(shown));
  }
  return bounds;
}

std::optional<IndexBounds> BoundsFor(const IndexDescriptor& index, const query::Matcher& filter,
                                     bool multikey) {
  const std::vector<query::PathCondition> conditions = filter.BoundingConjuncts();
  const std::vector<IndexField>& fields = index.fields();
  std::vector<std::vector<FieldInterval>> bounded;
  std::vector<ElemMatchSource> sources;  // of each bounded field
  std::size_t combinations = 1;
  for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
    const IndexField& field = fields[field_idx];
    // One array may hold both fields' values: a document's keys pair them element by element,
    // so bounding both could miss a document whose matches come from different elements. As in
    // mongod, conditions one element meets together (inside one $elemMatch) may bound both.
    const void* required = nullptr;
    bool may_share_array = false;
    for (std::size_t earlier_idx = 0; earlier_idx < field_idx; ++earlier_idx) {
      if (FirstComponent(fields[earlier_idx].path) != FirstComponent(field.path)) continue;
      const ElemMatchSource& earlier = sources[earlier_idx];
      if (!PartBelow(earlier, fields[earlier_idx].path, field.path) ||
          (required != nullptr && required != earlier.elem_match)) {
        may_share_array = true;
        break;
      }
      required = earlier.elem_match;
    }
    if (may_share_array) break;
    const FieldPlace place{index.sparse(), HasPositionalComponent(field.path), multikey};
    ElemMatchSource source;
    std::optional<std::vector<FieldInterval>> intervals =
        FieldIntervals(conditions, field, index.collator(), place, required, &source);
    if (!intervals.has_value()) break;
    sources.push_back(source);
    if (field_idx > 0 && combinations * intervals->size() > kMaxIntervals) break;
    combinations *= intervals->size();
    const bool points = AllPoints(*intervals);
    bounded.push_back(std::move(*intervals));
    if (!points || combinations == 0) break;
  }
  if (bounded.empty()) return std::nullopt;
  return AssembleBounds(index.fields(), bounded);
}

bool PointKeysAreExact(const IndexDescriptor& index) {
  const std::vector<IndexField>& fields = index.fields();
  for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
    if (HasPositionalComponent(fields[field_idx].path)) return false;
    for (std::size_t earlier_idx = 0; earlier_idx < field_idx; ++earlier_idx) {
      if (FirstComponent(fields[earlier_idx].path) == FirstComponent(fields[field_idx].path)) {
        return false;
      }
    }
  }
  return true;
}

std::optional<std::vector<IndexBounds>> SplitOnEqualityPrefix(const IndexBounds& bounds) {
  const std::size_t prefix = bounds.equality_prefix;
  if (prefix == 0 || prefix > bounds.fields.size()) return std::nullopt;
  // AssembleBounds lays the intervals out combination by combination, the last prefix field
  // varying fastest, each followed by the intervals of the fields after the prefix.
  std::size_t groups = 1;
  for (std::size_t field_idx = 0; field_idx < prefix; ++field_idx) {
    groups *= bounds.fields[field_idx].intervals.size();
  }
  if (groups == 0 || bounds.intervals.size() % groups != 0) return std::nullopt;
  const std::size_t per_group = bounds.intervals.size() / groups;
  std::vector<IndexBounds> split(groups);
  for (std::size_t group_idx = 0; group_idx < groups; ++group_idx) {
    IndexBounds& part = split[group_idx];
    part.equality_prefix = prefix;
    const auto first =
        bounds.intervals.begin() + static_cast<std::ptrdiff_t>(group_idx * per_group);
    part.intervals.assign(first, first + static_cast<std::ptrdiff_t>(per_group));
    part.fields.resize(bounds.fields.size());
    std::size_t rest = group_idx;
    for (std::size_t field_idx = bounds.fields.size(); field_idx-- > 0;) {
      const IndexBounds::Field& whole = bounds.fields[field_idx];
      if (field_idx >= prefix) {
        part.fields[field_idx] = whole;
        continue;
      }
      part.fields[field_idx] = {whole.path, {whole.intervals[rest % whole.intervals.size()]}};
      rest /= whole.intervals.size();
    }
  }
  return split;
}

IndexBounds FullBounds(const IndexDescriptor& index) {
  return AssembleBounds(index.fields(), {{WholeField(index.fields().front().descending)}});
}

}  // namespace quarry::exec
