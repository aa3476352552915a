#include "storage/read_view.h"

namespace quarry::storage::internal {

rocksdb::ReadOptions ReadOptionsFor(const ReadView* view) {
  rocksdb::ReadOptions options;
  if (view != nullptr) options.snapshot = view->snapshot;
  return options;
}

namespace {

// Whether a dropped collection's or index's keys (storage/dropped_keys.h) include `key`, as read
// through `view`.
bool Hidden(const EngineState& state, const ReadView* view, rocksdb::ColumnFamilyHandle* family,
            const rocksdb::Slice& key) {
  const DroppedKeys* dropped = state.DroppedKeysOf(family);
  return dropped != nullptr &&
         dropped->Hides(key.ToStringView(), view != nullptr ? view->snapshot : nullptr);
}

}  // namespace

rocksdb::Status ReadThrough(const EngineState& state, const ReadView* view,
                            rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                            rocksdb::PinnableSlice* value) {
  if (Hidden(state, view, family, key)) return rocksdb::Status::NotFound();
  const rocksdb::ReadOptions options = ReadOptionsFor(view);
  if (view == nullptr || view->writes == nullptr) {
    return state.db->Get(options, family, key, value);
  }
  return view->writes->GetFromBatchAndDB(state.db, options, family, key, value);
}

void MultiReadThrough(const EngineState& state, const ReadView* view,
                      rocksdb::ColumnFamilyHandle* family, std::size_t count,
                      const rocksdb::Slice* keys, rocksdb::PinnableSlice* values,
                      rocksdb::Status* statuses) {
  const rocksdb::ReadOptions options = ReadOptionsFor(view);
  if (view == nullptr || view->writes == nullptr) {
    state.db->MultiGet(options, family, count, keys, values, statuses);
  } else {
    view->writes->MultiGetFromBatchAndDB(state.db, options, family, count, keys, values, statuses,
                                         /*sorted_input=*/false);
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (!Hidden(state, view, family, keys[k])) continue;
    values[k].Reset();
    statuses[k] = rocksdb::Status::NotFound();
  }
}

std::unique_ptr<rocksdb::Iterator> IterateThrough(const EngineState& state, const ReadView* view,
                                                  rocksdb::ColumnFamilyHandle* family,
                                                  const rocksdb::ReadOptions& options) {
  // Scans of records and index keys stay within one collection or index, whose id their lower
  // bound starts with.
  if (options.iterate_lower_bound != nullptr &&
      Hidden(state, view, family, *options.iterate_lower_bound)) {
    return std::unique_ptr<rocksdb::Iterator>(rocksdb::NewEmptyIterator());
  }
  rocksdb::Iterator* base = state.db->NewIterator(options, family);
  if (view == nullptr || view->writes == nullptr) return std::unique_ptr<rocksdb::Iterator>(base);
  return std::unique_ptr<rocksdb::Iterator>(
      view->writes->NewIteratorWithBase(family, base, &options));
}

}  // namespace quarry::storage::internal
