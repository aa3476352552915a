// Wildcard index bounds: one covered path of the filter, read like a single-field index whose
// keys are prefixed by that path (mongod's planner_wildcard_helpers, for non-compound indexes).
#include "exec/wildcard_bounds.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "bson/path.h"
#include "exec/index_intervals_internal.h"
#include "exec/wildcard_keys_internal.h"
#include "exec/wildcard_projection.h"
#include "query/match/field_path.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

using query::CompareOp;

bool HasNumericComponent(std::string_view path) {
  for (const bson::PathComponent& part : bson::PathComponents(path)) {
    if (query::ArrayIndexOf(part.name).has_value()) return true;
  }
  return false;
}

// A value whose documents the index holds under other paths or as their elements, so that no key
// at the condition's path shows them equal.
bool IndexedApart(bson::ValueView value) {
  return value.type() == bson::Type::kArray ||
         (value.type() == bson::Type::kDocument && !value.Document().empty());
}

// Whether every document `condition` matches has a key at its path inside the condition's
// intervals.
bool KeysShowMatches(const query::PathCondition& condition) {
  if (MatchesMissing(condition)) return false;
  switch (condition.op) {
    case CompareOp::kEq:
      return !IndexedApart(condition.value);
    case CompareOp::kIn:
      return std::ranges::none_of(condition.value.Document(), [](const bson::Element& element) {
        return IndexedApart(element.value);
      });
    case CompareOp::kLt:
    case CompareOp::kLte:
    case CompareOp::kGt:
    case CompareOp::kGte: {
      const bson::Type type = condition.value.type();
      return type != bson::Type::kDocument && type != bson::Type::kArray &&
             type != bson::Type::kMinKey && type != bson::Type::kMaxKey;
    }
    case CompareOp::kRegex:
      return true;
    case CompareOp::kExists:
    case CompareOp::kElemMatch:
      return false;
  }
  return false;
}

bool AllPoints(const std::vector<FieldInterval>& intervals) {
  return std::ranges::all_of(intervals,
                             [](const FieldInterval& interval) { return interval.point; });
}

FieldInterval PathPoint(std::string_view path) {
  bson::DocumentBuilder b;
  b.AppendString("p", path);
  const bson::Document doc = std::move(b).Finish();
  const std::string shown = ShowBound(doc.Get("p"));
  const std::string bytes = EncodeWildcardPath(path);
  return FieldInterval{Edge{bytes, false, shown, true}, Edge{bytes, true, shown, true}, true};
}

// The first path, at the top level of `filter` or inside $and, with {$exists: true}.
std::optional<std::string_view> ExistingPath(bson::DocumentView filter,
                                             const WildcardProjection& paths) {
  for (const bson::Element& e : filter) {
    if (e.key == "$and" && e.value.type() == bson::Type::kArray) {
      for (const bson::Element& clause : e.value.Document()) {
        if (clause.value.type() != bson::Type::kDocument) continue;
        if (auto path = ExistingPath(clause.value.Document(), paths)) return path;
      }
      continue;
    }
    if (e.key.starts_with('$') || e.value.type() != bson::Type::kDocument) continue;
    const bson::ValueView exists = e.value.Document().Get("$exists");
    if (exists.exists() && exists.Truthy() && paths.Covers(e.key) && !HasNumericComponent(e.key)) {
      return e.key;
    }
  }
  return std::nullopt;
}

// Every key of `path` and of the paths below it: [path] x [MinKey, MaxKey], then the paths that
// start with "path." (each with any value), as mongod bounds $_path for $exists.
IndexBounds SubpathBounds(const std::vector<IndexField>& fields, std::string_view path) {
  IndexBounds bounds =
      AssembleBounds(fields, {{PathPoint(path)}, {WholeField(fields.back().descending)}});
  const std::string below = std::string(path) + ".";
  const Edge start{storage::StringPrefixKey(below), false, "", true};
  const Edge end{start.bytes, true, "", false};
  bounds.intervals.push_back(
      KeyInterval{EdgePosition("", start), true, EdgePosition("", end), false});
  std::string next = below;
  next.back() = static_cast<char>(next.back() + 1);
  bounds.fields.front().intervals.push_back("[\"" + below + "\", \"" + next + "\")");
  return bounds;
}

}  // namespace

std::optional<WildcardScan> WildcardScanFor(const IndexDescriptor& index,
                                            const query::Matcher& filter) {
  const WildcardProjection& paths = *index.wildcard();
  const bool descending = index.fields().front().descending;
  std::optional<std::pair<std::string_view, std::vector<FieldInterval>>> range;
  std::optional<std::pair<std::string_view, std::vector<FieldInterval>>> chosen;
  for (const query::PathCondition& condition : filter.Conjuncts()) {
    if (!paths.Covers(condition.path) || HasNumericComponent(condition.path)) continue;
    if (!KeysShowMatches(condition)) continue;
    std::optional<std::vector<FieldInterval>> intervals =
        IntervalsFor(condition, descending, index.collator());
    if (!intervals.has_value()) continue;
    if (AllPoints(*intervals)) {
      chosen.emplace(condition.path, std::move(*intervals));
      break;
    }
    if (!range.has_value()) range.emplace(condition.path, std::move(*intervals));
  }
  if (!chosen.has_value()) chosen = std::move(range);
  std::optional<std::string_view> existing;
  if (!chosen.has_value()) existing = ExistingPath(filter.filter(), paths);
  if (!chosen.has_value() && !existing.has_value()) return std::nullopt;
  WildcardScan scan;
  scan.path = std::string(chosen.has_value() ? chosen->first : *existing);
  const std::vector<IndexField> fields{IndexField{"$_path", false},
                                       IndexField{scan.path, descending}};
  if (chosen.has_value()) {
    scan.bounds = AssembleBounds(fields, {{PathPoint(scan.path)}, std::move(chosen->second)});
  } else {
    scan.bounds = SubpathBounds(fields, scan.path);
    scan.subpaths = true;
  }
  bson::DocumentBuilder key_pattern;
  key_pattern.AppendInt32("$_path", 1);
  key_pattern.Append(scan.path, index.key_pattern().begin()->value);
  scan.key_pattern = std::move(key_pattern).Finish();
  return scan;
}

std::vector<std::string> MultikeyPathsAbove(catalog::IndexRuntime& runtime, std::string_view path) {
  std::vector<std::string> above;
  std::lock_guard lock(runtime.multikey_paths_mu);
  for (const std::string& multikey : runtime.multikey_paths) {
    if (path.starts_with(multikey) &&
        (path.size() == multikey.size() || path[multikey.size()] == '.')) {
      above.push_back(multikey);
    }
  }
  return above;
}

bson::Document WildcardMultikeyPathsExplain(std::string_view path,
                                            const std::vector<std::string>& multikey_paths) {
  bson::DocumentBuilder b;
  b.OpenArray("$_path").Close();
  b.OpenArray(path);
  for (std::size_t path_idx = 0; path_idx < multikey_paths.size(); ++path_idx) {
    b.AppendString(std::to_string(path_idx), multikey_paths[path_idx]);
  }
  b.Close();
  return std::move(b).Finish();
}

std::optional<storage::ScanDirection> WildcardSortDirection(const IndexDescriptor& index,
                                                            const WildcardScan& scan, bool multikey,
                                                            const query::SortSpec& sort) {
  const auto& sort_fields = sort.fields();
  if (multikey || scan.subpaths || sort_fields.size() != 1 ||
      sort_fields.front().path.dotted() != scan.path) {
    return std::nullopt;
  }
  // The path is one point, so the value intervals follow each other in the index's order.
  const bool reversed = index.fields().front().descending == sort_fields.front().ascending;
  return reversed ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
}

}  // namespace quarry::exec
