// Collections and indexes created inside multi-document transactions (catalog.h).
#include <mutex>
#include <utility>

#include "catalog/catalog.h"
#include "catalog/names.h"

namespace quarry::catalog {

std::shared_ptr<const CollectionInfo> Catalog::FindInTransaction(
    std::string_view db, std::string_view coll, const storage::Transaction& txn) const {
  std::shared_lock lock(mu_);
  if (auto published = FindLocked(db, coll)) return published;
  auto it = created_in_transactions_.find(CatalogKey(db, coll));
  if (it == created_in_transactions_.end() || it->second.txn != txn.id()) return nullptr;
  return it->second.info;
}

StatusWith<std::shared_ptr<const CollectionInfo>> Catalog::CreateInTransaction(
    std::string_view db, std::string_view coll, bson::DocumentView options,
    storage::Transaction& txn) {
  QUARRY_RETURN_IF_ERROR(ValidateNamespace(db, coll, /*allow_system_names=*/false));
  std::lock_guard ddl_lock(ddl_mu_);
  const std::string ns = std::string(db) + "." + std::string(coll);
  std::string key = CatalogKey(db, coll);
  if (FindLocked(db, coll) != nullptr) {
    return Status(ErrorCode::kNamespaceExists, "Collection " + ns + " already exists.");
  }
  if (auto it = created_in_transactions_.find(key); it != created_in_transactions_.end()) {
    if (it->second.txn == txn.id()) {
      return Status(ErrorCode::kNamespaceExists, "Collection " + ns + " already exists.");
    }
    return Status(ErrorCode::kWriteConflict,
                  "Collection " + ns + " is being created by another transaction");
  }
  storage::WriteUnit counters;
  storage::WriteUnit entry;
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<CollectionInfo> info,
                          NewCollection(db, coll, options, &counters, &entry));
  QUARRY_RETURN_IF_ERROR(StageInTransaction(std::move(counters), std::move(entry), txn));
  {
    std::unique_lock lock(mu_);
    created_in_transactions_[key] = {.txn = txn.id(), .info = info};
    transaction_creations_.store(created_in_transactions_.size(), std::memory_order_release);
  }
  txn.OnEnd([this, key = std::move(key), id = txn.id()](bool committed) {
    EndCreatedInTransaction(key, id, committed);
  });
  return std::shared_ptr<const CollectionInfo>(info);
}

Status Catalog::ModifyInTransaction(std::string_view db, std::string_view coll,
                                    const std::function<Status(CollectionInfo*)>& change,
                                    bson::DocumentView oplog_o, storage::Transaction& txn) {
  std::lock_guard ddl_lock(ddl_mu_);
  const std::string key = CatalogKey(db, coll);
  auto it = created_in_transactions_.find(key);
  if (it == created_in_transactions_.end() || it->second.txn != txn.id()) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "ns does not exist: " + std::string(db) + "." + std::string(coll));
  }
  auto modified = std::make_shared<CollectionInfo>(*it->second.info);
  QUARRY_RETURN_IF_ERROR(change(modified.get()));
  storage::WriteUnit counters;
  AssignIndexIds(modified.get(), &counters);
  storage::WriteUnit entry;
  entry.PutCatalog(key, modified->ToBson().bytes());
  if (!oplog_o.empty()) entry.LogCommand(modified->id, db, modified->uuid.view(), oplog_o);
  QUARRY_RETURN_IF_ERROR(StageInTransaction(std::move(counters), std::move(entry), txn));
  std::unique_lock lock(mu_);
  it->second.info = std::move(modified);
  return Status::OK();
}

Status Catalog::StageInTransaction(storage::WriteUnit counters, storage::WriteUnit entry,
                                   storage::Transaction& txn) {
  if (!counters.empty()) QUARRY_RETURN_IF_ERROR(Commit(std::move(counters), DdlOptions{}));
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult staged,
                          txn.Stage(std::move(entry), /*ordered=*/true));
  if (!staged.errors.empty()) return staged.errors.front().status;
  return Status::OK();
}

void Catalog::WaitWhileCreatedInTransaction(std::unique_lock<std::mutex>& ddl_lock,
                                            std::string_view key) {
  // Only DDL, which holds ddl_mu_, changes the map: no shared lock of mu_ is needed to read it.
  transaction_creation_ended_.wait(ddl_lock, [&] {
    return created_in_transactions_.find(key) == created_in_transactions_.end();
  });
}

void Catalog::EndCreatedInTransaction(const std::string& key, std::uint64_t txn, bool committed) {
  {
    std::lock_guard ddl_lock(ddl_mu_);
    std::unique_lock lock(mu_);
    auto it = created_in_transactions_.find(key);
    if (it == created_in_transactions_.end() || it->second.txn != txn) return;
    if (committed) Publish(std::move(it->second.info));
    created_in_transactions_.erase(it);
    transaction_creations_.store(created_in_transactions_.size(), std::memory_order_release);
  }
  transaction_creation_ended_.notify_all();
}

}  // namespace quarry::catalog
