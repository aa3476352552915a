// Reads of the catalog family.
#include "storage/catalog_store.h"

#include <rocksdb/db.h>

#include "storage/engine_internal.h"

namespace quarry::storage {

StatusWith<std::vector<std::pair<std::string, std::string>>> CatalogStore::ScanAll() const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(
      state_->db->NewIterator(rocksdb::ReadOptions(), state_->catalog));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) return internal::FromRocks(it->status(), "reading the catalog");
  return out;
}

}  // namespace quarry::storage
