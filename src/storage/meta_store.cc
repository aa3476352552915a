// Reads of the meta family.
#include "storage/meta_store.h"

#include <rocksdb/db.h>

#include "storage/engine_internal.h"

namespace quarry::storage {

StatusWith<std::optional<std::string>> MetaStore::Get(std::string_view name) const {
  std::string value;
  rocksdb::Status s = state_->db->Get(rocksdb::ReadOptions(), state_->meta, name, &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return internal::FromRocks(s, "reading meta");
  return std::optional<std::string>(std::move(value));
}

StatusWith<std::vector<std::pair<std::string, std::string>>> MetaStore::List(
    std::string_view prefix) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(
      state_->db->NewIterator(rocksdb::ReadOptions(), state_->meta));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) return internal::FromRocks(it->status(), "listing meta");
  return out;
}

}  // namespace quarry::storage
