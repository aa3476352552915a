#include "exec/index_choice.h"

#include <algorithm>
#include <tuple>

#include "exec/id_point.h"
#include "exec/partial_filter.h"
#include "exec/wildcard_bounds.h"

namespace quarry::exec {
namespace {

// The direction in which a scan of `index` returns `sort`'s order when the sort's fields are the
// key fields from `skip` on (those before pinned to one value); nullopt when they are not.
std::optional<storage::ScanDirection> DirectionAt(const IndexDescriptor& index, std::size_t skip,
                                                  const query::SortSpec& sort) {
  const auto& sort_fields = sort.fields();
  const auto& fields = index.fields();
  if (sort_fields.empty() || skip + sort_fields.size() > fields.size()) return std::nullopt;
  std::optional<bool> reversed;
  for (std::size_t j = 0; j < sort_fields.size(); ++j) {
    const IndexField& field = fields[skip + j];
    if (field.path != sort_fields[j].path.dotted()) return std::nullopt;
    const bool flipped = field.descending == sort_fields[j].ascending;
    if (reversed.has_value() && *reversed != flipped) return std::nullopt;
    reversed = flipped;
  }
  return *reversed ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
}

// Whether a scan over `bounds` returns documents in `sort` order, and in which direction. A
// multikey index never does: a document's array elements are scattered through it.
std::optional<storage::ScanDirection> SortDirection(const IndexDescriptor& index,
                                                    const IndexBounds& bounds, bool multikey,
                                                    const query::SortSpec& sort) {
  if (multikey) return std::nullopt;
  // With one interval the fields pinned to one value can be skipped; with several (an $in),
  // each interval is ordered on its own, so the sort must start at the first field.
  const std::size_t max_skip = bounds.intervals.size() == 1 ? bounds.equality_prefix : 0;
  for (std::size_t skip = 0; skip <= max_skip; ++skip) {
    if (std::optional<storage::ScanDirection> direction = DirectionAt(index, skip, sort)) {
      return direction;
    }
  }
  return std::nullopt;
}

// The collation a read compares strings under: the filter's, else the sort's (a filter that
// matches everything is dropped before planning).
const bson::StringComparator* QueryCollator(const query::Matcher* filter,
                                            const query::SortSpec& sort) {
  if (filter != nullptr && filter->collator() != nullptr) return filter->collator();
  return sort.collator();
}

// Whether a value compares differently under another collation: a string, or a document or
// array that may hold one.
bool Collatable(bson::ValueView value) {
  switch (value.type()) {
    case bson::Type::kString:
    case bson::Type::kSymbol:
    case bson::Type::kDocument:
    case bson::Type::kArray:
      return true;
    default:
      return false;
  }
}

// Whether `condition` compares a value that orders differently under another collation.
bool ComparesCollatable(const query::PathCondition& condition) {
  switch (condition.op) {
    case query::CompareOp::kRegex:
      return true;
    case query::CompareOp::kExists:
      return false;
    case query::CompareOp::kElemMatch:
      return std::any_of(condition.element_conditions.begin(), condition.element_conditions.end(),
                         ComparesCollatable);
    case query::CompareOp::kIn:
      return std::any_of(condition.value.Document().begin(), condition.value.Document().end(),
                         [](const bson::Element& element) { return Collatable(element.value); });
    default:
      return Collatable(condition.value);
  }
}

// Whether the conditions of `filter` on `index`'s key fields compare no strings, so that bounds
// built from them read the same keys whatever collation orders the index's strings. mongod uses
// an index of another collation than the query's for such a filter ({n: {$gt: 5}}), for bounds
// only: the order it gives is not the query's.
bool BoundsIgnoreCollation(const IndexDescriptor& index, const query::Matcher& filter) {
  for (const query::PathCondition& condition : filter.BoundingConjuncts()) {
    const bool on_key_field =
        std::any_of(index.fields().begin(), index.fields().end(),
                    [&](const IndexField& field) { return field.path == condition.path; });
    if (on_key_field && ComparesCollatable(condition)) return false;
  }
  return true;
}

// Whether `index` can be considered for a query with `filter` and `sort`, whatever its
// collation (ChooseIndex decides that).
bool Usable(const catalog::IndexInfo& index, const ParsedIndex& parsed,
            const query::Matcher* filter) {
  if (!index.ready || index.spec.Get("hidden").Truthy()) return false;
  const query::Matcher* partial = parsed.descriptor.partial_filter();
  return partial == nullptr || (filter != nullptr && FilterImplies(*filter, partial->filter()));
}

// The access of wildcard `index`: a scan of the one path it reads for `filter`; nullopt when the
// filter bounds none of its paths (it cannot be read whole, nor for order alone).
std::optional<IndexAccess> WildcardAccessOf(const catalog::IndexInfo& index,
                                            std::shared_ptr<const ParsedIndex> parsed,
                                            const query::Matcher* filter,
                                            const query::SortSpec& sort) {
  if (filter == nullptr) return std::nullopt;
  std::optional<WildcardScan> scan = WildcardScanFor(parsed->descriptor, *filter);
  if (!scan.has_value()) return std::nullopt;
  IndexAccess access;
  access.index = &index;
  const std::vector<std::string> multikey_paths = MultikeyPathsAbove(*index.runtime, scan->path);
  access.multikey = !multikey_paths.empty();
  access.bounded = true;
  std::optional<storage::ScanDirection> direction =
      WildcardSortDirection(parsed->descriptor, *scan, access.multikey, sort);
  access.provides_sort = direction.has_value();
  access.direction = direction.value_or(storage::ScanDirection::kForward);
  access.bounds = std::move(scan->bounds);
  access.wildcard_key_pattern = std::move(scan->key_pattern);
  access.wildcard_multikey_paths = WildcardMultikeyPathsExplain(scan->path, multikey_paths);
  access.wildcard_subpaths = scan->subpaths;
  access.parsed = std::move(parsed);
  return access;
}

// The access of `index` for `filter` and `sort`; nullopt when it neither bounds nor orders.
std::optional<IndexAccess> AccessOf(const catalog::IndexInfo& index,
                                    std::shared_ptr<const ParsedIndex> parsed,
                                    const query::Matcher* filter, const query::SortSpec& sort,
                                    bool hinted) {
  if (parsed->descriptor.wildcard() != nullptr) {
    return WildcardAccessOf(index, std::move(parsed), filter, sort);
  }
  // A text index holds terms, not field values: only a $text search reads it (text_plan.h).
  if (parsed->descriptor.text() != nullptr) return std::nullopt;
  IndexAccess access;
  access.index = &index;
  access.multikey = index.runtime->multikey.load();
  std::optional<IndexBounds> bounds;
  if (filter != nullptr) bounds = BoundsFor(parsed->descriptor, *filter, access.multikey);
  access.bounded = bounds.has_value();
  if (bounds.has_value()) {
    access.bounds = std::move(*bounds);
  } else if (parsed->descriptor.sparse() && !hinted) {
    return std::nullopt;  // its whole key space misses documents
  } else {
    access.bounds = FullBounds(parsed->descriptor);
  }
  std::optional<storage::ScanDirection> direction =
      SortDirection(parsed->descriptor, access.bounds, access.multikey, sort);
  if (!bounds.has_value() && !direction.has_value() && !hinted) return std::nullopt;
  access.provides_sort = direction.has_value();
  access.direction = direction.value_or(storage::ScanDirection::kForward);
  access.parsed = std::move(parsed);
  return access;
}

}  // namespace

StatusWith<std::vector<IndexAccess>> CandidateIndexes(const catalog::CollectionInfo& info,
                                                      const query::Matcher* filter,
                                                      const query::SortSpec& sort) {
  std::vector<IndexAccess> candidates;
  for (const catalog::IndexInfo& index : info.indexes) {
    if (index.is_id_index()) continue;
    QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
    if (!Usable(index, *parsed, filter)) continue;
    // An index of another collation orders and bounds strings differently: it serves only a
    // filter that compares none, and gives no order.
    const bool same_collation =
        bson::SameCollation(parsed->descriptor.collator(), QueryCollator(filter, sort));
    if (!same_collation && (filter == nullptr || parsed->descriptor.partial_filter() != nullptr ||
                            !BoundsIgnoreCollation(parsed->descriptor, *filter))) {
      continue;
    }
    std::optional<IndexAccess> access = AccessOf(index, std::move(parsed), filter,
                                                 same_collation ? sort : query::SortSpec(), false);
    if (!access.has_value() || (!same_collation && !access->bounded)) continue;
    candidates.push_back(std::move(*access));
  }
  return candidates;
}

StatusWith<const catalog::IndexInfo*> UniqueIndexPinnedBy(const catalog::CollectionInfo& info,
                                                          bson::DocumentView filter,
                                                          bool sparse_counts) {
  if (info.indexes.empty()) return nullptr;
  // The first index is the _id index, which the name would tell for a dozen more instructions
  // per index on the point-read path.
  for (auto index = std::next(info.indexes.begin()); index < info.indexes.end(); ++index) {
    if (!index->ready) continue;
    QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*index));
    const IndexDescriptor& descriptor = parsed->descriptor;
    if (!descriptor.unique() || descriptor.wildcard() != nullptr ||
        descriptor.partial_filter() != nullptr || descriptor.collator() != nullptr ||
        (descriptor.sparse() && !sparse_counts) || index->spec.Get("hidden").Truthy()) {
      continue;
    }
    const bool pinned =
        std::all_of(descriptor.fields().begin(), descriptor.fields().end(),
                    [&](const IndexField& field) { return IsPointValue(filter.Get(field.path)); });
    if (pinned) return &*index;
  }
  return nullptr;
}

StatusWith<std::optional<IndexAccess>> UniquePointAccess(const catalog::CollectionInfo& info,
                                                         const query::Matcher& filter) {
  const std::optional<IndexAccess> none;
  if (filter.collator() != nullptr) return none;
  QUARRY_ASSIGN_OR_RETURN(const catalog::IndexInfo* index,
                          UniqueIndexPinnedBy(info, filter.filter(), true));
  if (index == nullptr) return none;
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(*index));
  std::optional<IndexAccess> access =
      AccessOf(*index, std::move(parsed), &filter, query::SortSpec(), false);
  if (access.has_value() && access->bounded) return access;
  return none;
}

StatusWith<std::optional<IndexAccess>> ChooseIndex(const catalog::CollectionInfo& info,
                                                   const query::Matcher* filter,
                                                   const query::SortSpec& sort) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<IndexAccess> candidates,
                          CandidateIndexes(info, filter, sort));
  std::optional<IndexAccess> best;
  // Larger ranks better: equality prefix, bounded, sort, fewer fields. A wildcard index ranks as
  // a single-field index on the path it reads: its path point is not one of its fields.
  auto rank = [](const IndexAccess& a) {
    const std::size_t path_point = a.wildcard_key_pattern.has_value() ? 1 : 0;
    return std::make_tuple(a.bounds.equality_prefix - path_point, a.bounded, a.provides_sort,
                           -static_cast<int>(a.parsed->descriptor.fields().size()));
  };
  for (IndexAccess& access : candidates) {
    if (!best.has_value() || rank(access) > rank(*best)) best = std::move(access);
  }
  return best;
}

std::optional<std::vector<query::Matcher>> OrBranchesOf(const query::Matcher& filter) {
  const bson::ValueView branches = filter.filter().Get("$or");
  if (branches.type() != bson::Type::kArray) return std::nullopt;
  std::vector<query::Matcher> parsed;
  for (const bson::Element& e : branches.Document()) {
    if (e.value.type() != bson::Type::kDocument) return std::nullopt;
    StatusWith<query::Matcher> branch =
        query::Matcher::Parse(e.value.Document(), bson::DocumentView(), filter.shared_collator());
    if (!branch.ok()) return std::nullopt;
    parsed.push_back(std::move(branch).value());
  }
  return parsed;
}

StatusWith<std::optional<std::vector<IndexAccess>>> ChooseOrIndexes(
    const catalog::CollectionInfo& info, const query::Matcher& filter,
    const query::SortSpec& sort) {
  const std::optional<std::vector<IndexAccess>> none;
  std::optional<std::vector<query::Matcher>> branches = OrBranchesOf(filter);
  if (!branches.has_value()) return none;
  std::vector<IndexAccess> scans;
  for (const query::Matcher& branch : *branches) {
    // A branch compares strings under the filter's collation, so only indexes of that one bound
    // it.
    QUARRY_ASSIGN_OR_RETURN(std::optional<IndexAccess> access, ChooseIndex(info, &branch, sort));
    if (!access.has_value() || !access->bounded) return none;
    scans.push_back(std::move(*access));
  }
  if (scans.empty()) return none;
  return std::optional<std::vector<IndexAccess>>(std::move(scans));
}

std::optional<std::vector<IndexAccess>> ScansGivingSort(const IndexAccess& access,
                                                        const query::SortSpec& sort) {
  // A wildcard index's keys start with their path, which a merge of key fields cannot read.
  if (access.wildcard_key_pattern.has_value()) return std::nullopt;
  if (access.provides_sort) return std::vector<IndexAccess>{access};
  const IndexDescriptor& index = access.parsed->descriptor;
  // Keys of another collation are not in the sort's order; a multikey index's keys of one
  // record are scattered through it.
  if (access.multikey || !sort.needs_sort() ||
      !bson::SameCollation(index.collator(), sort.collator())) {
    return std::nullopt;
  }
  // mongod's explodeForSort: the sort must be the key fields right after the pinned ones.
  std::optional<storage::ScanDirection> direction =
      DirectionAt(index, access.bounds.equality_prefix, sort);
  if (!direction.has_value()) return std::nullopt;
  std::optional<std::vector<IndexBounds>> split = SplitOnEqualityPrefix(access.bounds);
  if (!split.has_value() || split->size() < 2 || split->size() > kMaxScansToExplode) {
    return std::nullopt;
  }
  // In scan order, as mongod lists them.
  if (*direction == storage::ScanDirection::kBackward) std::reverse(split->begin(), split->end());
  IndexAccess each = access;
  each.bounds = IndexBounds();  // not copied once per scan
  each.direction = *direction;
  each.provides_sort = true;
  std::vector<IndexAccess> scans;
  for (IndexBounds& bounds : *split) {
    scans.push_back(each);
    scans.back().bounds = std::move(bounds);
  }
  return scans;
}

StatusWith<IndexAccess> HintedIndexAccess(const catalog::IndexInfo& index,
                                          const query::Matcher* filter,
                                          const query::SortSpec& sort) {
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
  std::optional<IndexAccess> access;
  if (!bson::SameCollation(parsed->descriptor.collator(), QueryCollator(filter, sort))) {
    // Its bounds and order are another collation's: read all of it, and let FETCH and SORT
    // apply the query's.
    access = AccessOf(index, std::move(parsed), nullptr, query::SortSpec(), /*hinted=*/true);
  } else {
    access = AccessOf(index, std::move(parsed), filter, sort, /*hinted=*/true);
  }
  if (!access.has_value() && index.key().Has("_fts")) {
    return Status(ErrorCode::kBadValue,
                  "error processing query: planner returned error :: caused by :: hint provided "
                  "does not correspond to an index the query can use: the text index '" +
                      std::string(index.name()) + "' answers $text searches only");
  }
  if (!access.has_value()) {
    // Only a wildcard index has no access without bounds (mongod: jstests wildcard_hint.js).
    return Status(ErrorCode::kBadValue,
                  "error processing query: planner returned error :: caused by :: hint provided "
                  "does not correspond to an index the query can use: the wildcard index '" +
                      std::string(index.name()) + "' indexes no path the filter bounds");
  }
  return std::move(*access);
}

StatusWith<IndexAccess> BoundedIndexAccess(const catalog::IndexInfo& index, IndexBounds bounds,
                                           const query::SortSpec& sort) {
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const ParsedIndex> parsed, ParsedIndexOf(index));
  IndexAccess access;
  access.index = &index;
  access.multikey = index.runtime->multikey.load();
  access.bounds = std::move(bounds);
  access.bounded = true;
  std::optional<storage::ScanDirection> direction =
      SortDirection(parsed->descriptor, access.bounds, access.multikey, sort);
  access.provides_sort = direction.has_value();
  access.direction = direction.value_or(storage::ScanDirection::kForward);
  access.parsed = std::move(parsed);
  return access;
}

}  // namespace quarry::exec
