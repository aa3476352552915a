// The catalog: databases and collections, loaded into memory at start and changed only through
// the commit pipeline, so each change commits atomically with its oplog entry.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "catalog/collection_info.h"
#include "storage/commit_pipeline.h"
#include "storage/engine.h"
#include "storage/transaction.h"

namespace quarry::catalog {

struct DatabaseInfo {
  std::string name;
  std::uint64_t size_on_disk = 0;  // approximate, compressed
  bool empty = true;               // no collection holds a record
};

struct DdlOptions {
  storage::Durability durability = storage::Durability::kNone;
  // Lets CreateCollection / EnsureCollection / RenameCollection use "system." names.
  bool allow_system_names = false;
};

// Thread-safe. Reads (Find, List*) take a shared lock and never touch the disk, except for the
// sizes in ListDatabases. DDL operations are serialized among themselves.
//
// A multi-document transaction may create collections, and indexes on the collections it
// created (mongod's 4.4 rules): they are staged in the transaction with its writes, seen only
// through it (FindInTransaction; FindById finds them for the commit) and published when it
// commits, forgotten when it aborts. Meanwhile another transaction creating the same collection
// fails with WriteConflict, and a plain creation or rename onto it waits for the end.
class Catalog {
 public:
  // Loads every collection from the catalog family. The engine must outlive the catalog.
  static StatusWith<std::unique_ptr<Catalog>> Load(storage::Engine* engine);

  storage::Engine& engine() const { return *engine_; }

  // The collection, or null when it does not exist.
  std::shared_ptr<const CollectionInfo> Find(std::string_view db, std::string_view coll) const;
  std::shared_ptr<const CollectionInfo> FindById(storage::CollectionId id) const;

  // Databases that hold at least one collection, by name.
  std::vector<DatabaseInfo> ListDatabases() const;
  std::vector<std::string> DatabaseNames() const;
  // The collections of `db`, by name.
  std::vector<std::shared_ptr<const CollectionInfo>> ListCollections(std::string_view db) const;

  // Creates a collection with a new UUID and id and the _id index (with the `collation` of
  // `options` when it has one), and logs
  // {op: "c", ns: "db.$cmd", ui, o: {create: coll, <options>}}. Fails with kNamespaceExists,
  // or kInvalidNamespace for a bad name.
  StatusWith<std::shared_ptr<const CollectionInfo>> CreateCollection(
      std::string_view db, std::string_view coll, bson::DocumentView options = {},
      const DdlOptions& ddl = {});

  // The collection, created with default options if it does not exist yet (implicit creation
  // on first write). Concurrent callers get the same collection.
  StatusWith<std::shared_ptr<const CollectionInfo>> EnsureCollection(std::string_view db,
                                                                     std::string_view coll,
                                                                     const DdlOptions& ddl = {});

  // Drops the collection and all its records; logs {op: "c", o: {drop: coll}}. Returns the
  // number of indexes it had (nIndexesWas). Fails with kNamespaceNotFound.
  StatusWith<int> DropCollection(std::string_view db, std::string_view coll,
                                 const DdlOptions& ddl = {});

  // Drops every collection of `db` (a {drop} entry each), then logs {dropDatabase: 1}. Returns
  // the number of collections dropped; a database that does not exist is not an error.
  StatusWith<int> DropDatabase(std::string_view db, const DdlOptions& ddl = {});

  // Renames a collection, possibly into another database. Records keep their collection id,
  // so only the catalog changes. Logs {renameCollection: "db.a", to: "db.b", stayTemp: false,
  // dropTarget: <UUID of the replaced collection> | false} on the source database. Fails with
  // kNamespaceNotFound (no source), kNamespaceExists (target exists and !drop_target),
  // kIllegalOperation (source == target) or kInvalidNamespace.
  Status RenameCollection(std::string_view from_db, std::string_view from_coll,
                          std::string_view to_db, std::string_view to_coll, bool drop_target,
                          const DdlOptions& ddl = {});

  // The collection as `txn` sees it: a published one, or one `txn` created.
  std::shared_ptr<const CollectionInfo> FindInTransaction(std::string_view db,
                                                          std::string_view coll,
                                                          const storage::Transaction& txn) const;
  // CreateCollection inside `txn`: NamespaceExists as there (also for one `txn` created),
  // WriteConflict while another open transaction creates the same collection.
  StatusWith<std::shared_ptr<const CollectionInfo>> CreateInTransaction(std::string_view db,
                                                                        std::string_view coll,
                                                                        bson::DocumentView options,
                                                                        storage::Transaction& txn);
  // Cheap: whether an open transaction creates a collection (a plain creation may then wait).
  bool transactions_create_collections() const {
    return transaction_creations_.load(std::memory_order_acquire) > 0;
  }
  // ModifyCollection inside `txn`, of a collection `txn` created (else NamespaceNotFound).
  Status ModifyInTransaction(std::string_view db, std::string_view coll,
                             const std::function<Status(CollectionInfo*)>& change,
                             bson::DocumentView oplog_o, storage::Transaction& txn);

  // Marks `index` multikey, in memory and in a commit of its own that precedes, in the log,
  // whatever commit follows: a restart never finds multikey keys in an index not marked so.
  Status MarkMultikey(const IndexInfo& index);
  // As MarkMultikey, and adds `paths` to the index's multikey paths (IndexRuntime), durably.
  Status MarkMultikeyPaths(const IndexInfo& index, const std::vector<std::string>& paths);

  // Changes a collection's options or index specs: `change` edits a copy of its entry (it must
  // not touch db, name, uuid or id), which is then persisted atomically with the oplog entry
  // {op: "c", ns: "db.$cmd", ui, o: `oplog_o`} (collMod, createIndexes, dropIndexes; nothing is
  // logged when `oplog_o` is empty) and with the deletion of every key of `dropped_indexes`.
  // A secondary index the change leaves with id 0 gets a new id. The new entry is published
  // while the collection's writers lock is held exclusively. Fails with kNamespaceNotFound, or
  // with what `change` returns.
  Status ModifyCollection(std::string_view db, std::string_view coll,
                          const std::function<Status(CollectionInfo*)>& change,
                          bson::DocumentView oplog_o, const DdlOptions& ddl = {},
                          const std::vector<storage::IndexId>& dropped_indexes = {});

 private:
  using CollectionMap = std::map<std::string, std::shared_ptr<const CollectionInfo>, std::less<>>;

  explicit Catalog(storage::Engine* engine) : engine_(engine) {}
  std::shared_ptr<const CollectionInfo> FindLocked(std::string_view db,
                                                   std::string_view coll) const;
  StatusWith<std::shared_ptr<const CollectionInfo>> CreateLocked(std::string_view db,
                                                                 std::string_view coll,
                                                                 bson::DocumentView options,
                                                                 const DdlOptions& ddl);
  // A new collection's entry, with its id: the counters it advances go in `counters`, its
  // catalog entry and oplog entry in `entry`. REQUIRES: ddl_mu_ held.
  StatusWith<std::shared_ptr<CollectionInfo>> NewCollection(std::string_view db,
                                                            std::string_view coll,
                                                            bson::DocumentView options,
                                                            storage::WriteUnit* counters,
                                                            storage::WriteUnit* entry);
  // Stages `entry` in `txn`, having committed `counters` at once: ids a transaction takes are
  // never reused, whether it commits or not. REQUIRES: ddl_mu_ held.
  Status StageInTransaction(storage::WriteUnit counters, storage::WriteUnit entry,
                            storage::Transaction& txn);
  // Waits until no open transaction creates `key`. REQUIRES: `ddl_lock` holds ddl_mu_.
  void WaitWhileCreatedInTransaction(std::unique_lock<std::mutex>& ddl_lock, std::string_view key);
  // Publishes (committed) or forgets the collection `txn` created under `key`.
  void EndCreatedInTransaction(const std::string& key, std::uint64_t txn, bool committed);
  Status Commit(storage::WriteUnit unit, const DdlOptions& ddl);
  // REQUIRES: mu_ held exclusively.
  void Publish(std::shared_ptr<const CollectionInfo> info);
  void Erase(std::string_view db, std::string_view coll);
  // Gives each secondary index of `info` without an id a new one, and a collated _id index too,
  // noting the counter in `unit`.
  void AssignIndexIds(CollectionInfo* info, storage::WriteUnit* unit);

  storage::Engine* engine_;
  std::mutex ddl_mu_;  // serializes DDL; taken before mu_
  mutable std::shared_mutex mu_;
  std::map<std::string, CollectionMap, std::less<>> databases_;  // guarded by mu_
  // Every collection by id, guarded by mu_.
  std::unordered_map<storage::CollectionId, std::shared_ptr<const CollectionInfo>> by_id_;
  // Collections created by open transactions, by CatalogKey; guarded by mu_, changed under
  // ddl_mu_ too.
  struct CreatedInTransaction {
    std::uint64_t txn = 0;
    std::shared_ptr<const CollectionInfo> info;
  };
  std::map<std::string, CreatedInTransaction, std::less<>> created_in_transactions_;
  std::atomic<std::size_t> transaction_creations_{0};   // created_in_transactions_.size()
  std::condition_variable transaction_creation_ended_;  // waited on with ddl_mu_
  storage::CollectionId next_id_ = 1;                   // guarded by ddl_mu_
  storage::IndexId next_index_id_ = 1;                  // guarded by ddl_mu_
};

// The ids of the secondary indexes of `info`, and of a capped collection's natural-order
// indexes: the keys a drop deletes.
std::vector<storage::IndexId> SecondaryIndexIds(const CollectionInfo& info);

// The catalog family key of a collection: db, NUL, collection (db names have no NUL, so this
// sorts by database, then collection).
std::string CatalogKey(std::string_view db, std::string_view coll);

}  // namespace quarry::catalog
