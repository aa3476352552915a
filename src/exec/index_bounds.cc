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

// The intervals of the condition that bounds `field`: the first equality or $in, else the first
// range; nullopt when no condition can. Conditions that match a missing field are passed over
// when `missing_unindexed`: such a document may have no key that shows it.
std::optional<std::vector<FieldInterval>> FieldIntervals(
    const std::vector<query::PathCondition>& conditions, const IndexField& field,
    const bson::StringComparator* collator, bool missing_unindexed) {
  std::optional<std::vector<FieldInterval>> range;
  for (const query::PathCondition& condition : conditions) {
    if (condition.path != field.path) continue;
    if (missing_unindexed && MatchesMissing(condition)) continue;
    std::optional<std::vector<FieldInterval>> intervals =
        IntervalsFor(condition, field.descending, collator);
    if (!intervals.has_value()) continue;
    if (AllPoints(*intervals)) return intervals;
    if (!range.has_value()) range = std::move(intervals);
  }
  return range;
}

// Whole-key intervals: every combination of the leading fields' points, each followed by the
// last bounded field's intervals. The edges of those take in every key that continues them, so
// the fields after it are read whole.
IndexBounds Assemble(const IndexDescriptor& index,
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
  const std::vector<IndexField>& fields = index.fields();
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

}  // namespace

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

std::optional<IndexBounds> BoundsFor(const IndexDescriptor& index, const query::Matcher& filter) {
  const std::vector<query::PathCondition> conditions = filter.Conjuncts();
  const std::vector<IndexField>& fields = index.fields();
  std::vector<std::vector<FieldInterval>> bounded;
  std::size_t combinations = 1;
  for (std::size_t field_idx = 0; field_idx < fields.size(); ++field_idx) {
    const IndexField& field = fields[field_idx];
    // One array may hold both fields' values: a document's keys pair them element by element,
    // so bounding both could miss a document whose matches come from different elements.
    const bool may_share_array =
        std::any_of(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(field_idx),
                    [&](const IndexField& earlier) {
                      return FirstComponent(earlier.path) == FirstComponent(field.path);
                    });
    if (may_share_array) break;
    const bool missing_unindexed = index.sparse() || HasPositionalComponent(field.path);
    std::optional<std::vector<FieldInterval>> intervals =
        FieldIntervals(conditions, field, index.collator(), missing_unindexed);
    if (!intervals.has_value()) break;
    if (field_idx > 0 && combinations * intervals->size() > kMaxIntervals) break;
    combinations *= intervals->size();
    const bool points = AllPoints(*intervals);
    bounded.push_back(std::move(*intervals));
    if (!points || combinations == 0) break;
  }
  if (bounded.empty()) return std::nullopt;
  return Assemble(index, bounded);
}

IndexBounds FullBounds(const IndexDescriptor& index) {
  return Assemble(index, {{WholeField(index.fields().front().descending)}});
}

}  // namespace quarry::exec
