#include "exec/id_bounds.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "exec/index_choice.h"

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
  std::optional<std::vector<query::Matcher>> branches = OrBranchesOf(filter);
  if (!branches.has_value() || branches->empty()) return std::nullopt;
  IndexBounds all;
  all.fields.push_back({id_index.fields().front().path, {}});
  for (const query::Matcher& branch : *branches) {
    std::optional<IndexBounds> bounds = BoundsFor(id_index, branch, /*multikey=*/false);
    if (!bounds.has_value()) return std::nullopt;
    std::ranges::move(bounds->intervals, std::back_inserter(all.intervals));
    std::ranges::move(bounds->fields.front().intervals,
                      std::back_inserter(all.fields.front().intervals));
  }
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
