#include "exec/min_max_bounds.h"

#include <string>

#include "bson/builder.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

// Field names as the key pattern's, in its order and number (mongod compares names only).
bool NamesTheKeyFields(const IndexDescriptor& index, bson::DocumentView bound) {
  std::size_t field_idx = 0;
  for (const bson::Element& e : bound) {
    if (field_idx >= index.fields().size() || e.key != index.fields()[field_idx].path) {
      return false;
    }
    ++field_idx;
  }
  return field_idx == index.fields().size();
}

// The encoded key of `bound`'s values; for an empty bound, the key that sorts first (`low`) or
// last among the index's keys: MinKey or MaxKey per field, swapped on descending fields.
std::string KeyOf(const IndexDescriptor& index, bson::DocumentView bound, bool low) {
  std::string key;
  if (!bound.empty()) {
    std::size_t field_idx = 0;
    for (const bson::Element& e : bound) {
      storage::AppendIndexKey(e.value, index.fields()[field_idx++].descending, index.collator(),
                              &key);
    }
    return key;
  }
  for (const IndexField& field : index.fields()) {
    bson::DocumentBuilder b;
    if (low != field.descending) {
      b.AppendMinKey("v");
    } else {
      b.AppendMaxKey("v");
    }
    bson::Document extreme = std::move(b).Finish();
    storage::AppendIndexKey(extreme.Get("v"), field.descending, &key);
  }
  return key;
}

}  // namespace

StatusWith<IndexBounds> MinMaxBounds(const IndexDescriptor& index, bson::DocumentView min,
                                     bson::DocumentView max) {
  // A wildcard index's keys start with a path that min and max cannot name.
  if (index.wildcard() != nullptr || index.text() != nullptr ||
      (!min.empty() && !NamesTheKeyFields(index, min)) ||
      (!max.empty() && !NamesTheKeyFields(index, max))) {
    return Status(static_cast<ErrorCode>(51174), "The index chosen is not compatible with min/max");
  }
  KeyInterval interval;
  interval.start = KeyOf(index, min, /*low=*/true);
  interval.start_inclusive = true;
  interval.end = KeyOf(index, max, /*low=*/false);
  interval.end_inclusive = false;
  if (interval.start >= interval.end) {
    return Status(static_cast<ErrorCode>(51175),
                  "The value provided for min() does not come before the value provided for max() "
                  "in the hinted index");
  }
  IndexBounds bounds;
  bounds.intervals.push_back(std::move(interval));
  return bounds;
}

}  // namespace quarry::exec
