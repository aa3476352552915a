#include "storage/read_view.h"

namespace quarry::storage::internal {

rocksdb::ReadOptions ReadOptionsFor(const ReadView* view) {
  rocksdb::ReadOptions options;
  if (view != nullptr) options.snapshot = view->snapshot;
  return options;
}

rocksdb::Status ReadThrough(const EngineState& state, const ReadView* view,
                            rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                            rocksdb::PinnableSlice* value) {
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
    return;
  }
  view->writes->MultiGetFromBatchAndDB(state.db, options, family, count, keys, values, statuses,
                                       /*sorted_input=*/false);
}

std::unique_ptr<rocksdb::Iterator> IterateThrough(const EngineState& state, const ReadView* view,
                                                  rocksdb::ColumnFamilyHandle* family,
                                                  const rocksdb::ReadOptions& options) {
  rocksdb::Iterator* base = state.db->NewIterator(options, family);
  if (view == nullptr || view->writes == nullptr) return std::unique_ptr<rocksdb::Iterator>(base);
  return std::unique_ptr<rocksdb::Iterator>(
      view->writes->NewIteratorWithBase(family, base, &options));
}

}  // namespace quarry::storage::internal
