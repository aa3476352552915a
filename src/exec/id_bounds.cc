#include "exec/id_bounds.h"

#include <algorithm>
#include <string>
#include <vector>

namespace quarry::exec {
namespace {

// Sorted by start, with intervals that overlap or touch joined: what one pass over records can
// read without meeting a record twice.
std::vector<KeyInterval> Union(std::vector<KeyInterval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const KeyInterval& a, const KeyInterval& b) { return a.start < b.start; });
  std::vector<KeyInterval> joined;
  for (KeyInterval& interval : intervals) {
    if (!joined.empty() && interval.start <= joined.back().end) {
      if (interval.end > joined.back().end) joined.back().end = std::move(interval.end);
      continue;
    }
    joined.push_back(std::move(interval));
  }
  return joined;
}

std::optional<IndexBounds> OrBranchBounds(const IndexDescriptor& id_index,
                                          const query::Matcher& filter) {
  const bson::ValueView branches = filter.filter().Get("$or");
  if (branches.type() != bson::Type::kArray) return std::nullopt;
  IndexBounds all;
  all.fields.push_back({"_id", {}});
  bool any = false;
  for (const bson::Element& e : branches.Document()) {
    if (e.value.type() != bson::Type::kDocument) return std::nullopt;
    // A branch that does not parse alone (it reads `let` variables) bounds nothing here.
    StatusWith<query::Matcher> branch =
        query::Matcher::Parse(e.value.Document(), bson::DocumentView(), filter.shared_collator());
    if (!branch.ok()) return std::nullopt;
    std::optional<IndexBounds> bounds = BoundsFor(id_index, branch.value(), /*multikey=*/false);
    if (!bounds.has_value()) return std::nullopt;
    any = true;
    std::ranges::move(bounds->intervals, std::back_inserter(all.intervals));
    for (std::string& shown : bounds->fields.front().intervals) {
      all.fields.front().intervals.push_back(std::move(shown));
    }
  }
  if (!any) return std::nullopt;
  all.intervals = Union(std::move(all.intervals));
  return all;
}

}  // namespace

std::optional<IndexBounds> IdBoundsFor(const IndexDescriptor& id_index,
                                       const query::Matcher& filter) {
  std::optional<IndexBounds> bounds = BoundsFor(id_index, filter, /*multikey=*/false);
  if (bounds.has_value()) return bounds;
  return OrBranchBounds(id_index, filter);
}

}  // namespace quarry::exec
