// Catalog: in-memory maps in front of the catalog family, DDL through the commit pipeline.
#include "catalog/catalog.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <utility>

#include "base/check.h"
#include "base/clock.h"
#include "base/endian.h"
#include "bson/builder.h"
#include "catalog/names.h"

namespace quarry::catalog {
namespace {

// The _id index of a collection created with `options`: it orders by the collection's default
// collation when there is one, as mongod's does.
bson::Document IdIndexSpecFor(bson::DocumentView options) {
  bson::ValueView collation = options.Get("collation");
  if (collation.type() != bson::Type::kDocument) return IdIndexSpec();
  bson::DocumentBuilder b;
  b.AppendElements(IdIndexSpec().view());
  b.AppendDocument("collation", collation.Document());
  return std::move(b).Finish();
}

// Meta name of the next collection id (8 bytes, big-endian). Persisted with each create, so ids
// are never reused, even after the collection that had one is dropped.
constexpr std::string_view kNextIdName = "catalog/next_collection_id";
// The same for index ids.
constexpr std::string_view kNextIndexIdName = "catalog/next_index_id";

// Meta name that marks an index multikey: this prefix + its id (8 bytes, big-endian).
constexpr std::string_view kMultikeyPrefix = "catalog/multikey/";

std::string MultikeyName(storage::IndexId index) {
  std::string name(kMultikeyPrefix);
  AppendBigEndian64(index, &name);
  return name;
}

// The multikey mark's value: "1", then each multikey path of a wildcard index after a 0 byte.
std::string MultikeyValue(const std::vector<std::string>& paths) {
  std::string value = "1";
  for (const std::string& path : paths) {
    value += '\0';
    value += path;
  }
  return value;
}

std::vector<std::string> MultikeyPathsOf(std::string_view value) {
  std::vector<std::string> paths;
  std::size_t start = value.find('\0');
  while (start != std::string_view::npos) {
    const std::size_t end = value.find('\0', start + 1);
    paths.emplace_back(
        value.substr(start + 1, end == std::string_view::npos ? end : end - start - 1));
    start = end;
  }
  return paths;
}

std::string BigEndian(std::uint64_t value) {
  std::string bytes;
  AppendBigEndian64(value, &bytes);
  return bytes;
}

StatusWith<std::uint64_t> LoadCounter(const storage::Engine& engine, std::string_view name) {
  QUARRY_ASSIGN_OR_RETURN(auto stored, engine.meta().Get(name));
  return stored.has_value() && stored->size() == 8 ? LoadBigEndian64(stored->data()) : 1;
}

// {drop: coll}, logged against the collection.
void LogDrop(const CollectionInfo& info, storage::WriteUnit* unit) {
  bson::DocumentBuilder o;
  o.AppendString("drop", info.name);
  unit->LogCommand(info.id, info.db, info.uuid.view(), std::move(o).Finish());
}

}  // namespace

std::vector<storage::IndexId> SecondaryIndexIds(const CollectionInfo& info) {
  std::vector<storage::IndexId> ids;
  for (const IndexInfo& index : info.indexes) {
    if (index.id != 0) ids.push_back(index.id);
  }
  if (info.natural_order_index != 0) {
    ids.push_back(info.natural_order_index);
    ids.push_back(info.natural_position_index);
  }
  return ids;
}

std::string CatalogKey(std::string_view db, std::string_view coll) {
  std::string key(db);
  key.push_back('\0');
  key.append(coll);
  return key;
}

StatusWith<std::unique_ptr<Catalog>> Catalog::Load(storage::Engine* engine) {
  std::unique_ptr<Catalog> catalog(new Catalog(engine));
  QUARRY_ASSIGN_OR_RETURN(auto entries, engine->catalog_store().ScanAll());
  storage::CollectionId max_id = 0;
  storage::IndexId max_index_id = 0;
  for (const auto& [key, value] : entries) {
    if (value.size() < 5) return Status(ErrorCode::kInternalError, "corrupt catalog entry");
    QUARRY_ASSIGN_OR_RETURN(CollectionInfo info,
                            CollectionInfo::FromBson(bson::DocumentView(value.data())));
    max_id = std::max(max_id, info.id);
    for (const IndexInfo& index : info.indexes) {
      if (index.id == 0) continue;
      max_index_id = std::max(max_index_id, index.id);
      QUARRY_ASSIGN_OR_RETURN(auto multikey, engine->meta().Get(MultikeyName(index.id)));
      index.runtime->multikey.store(multikey.has_value());
      if (multikey.has_value()) index.runtime->multikey_paths = MultikeyPathsOf(*multikey);
    }
    catalog->Publish(std::make_shared<const CollectionInfo>(std::move(info)));
  }
  QUARRY_ASSIGN_OR_RETURN(std::uint64_t next_id, LoadCounter(*engine, kNextIdName));
  QUARRY_ASSIGN_OR_RETURN(std::uint64_t next_index_id, LoadCounter(*engine, kNextIndexIdName));
  catalog->next_id_ = std::max(next_id, max_id + 1);
  catalog->next_index_id_ = std::max(next_index_id, max_index_id + 1);
  return catalog;
}

std::shared_ptr<const CollectionInfo> Catalog::Find(std::string_view db,
                                                    std::string_view coll) const {
  std::shared_lock lock(mu_);
  return FindLocked(db, coll);
}

std::shared_ptr<const CollectionInfo> Catalog::FindLocked(std::string_view db,
                                                          std::string_view coll) const {
  auto db_it = databases_.find(db);
  if (db_it == databases_.end()) return nullptr;
  auto it = db_it->second.find(coll);
  return it == db_it->second.end() ? nullptr : it->second;
}

std::shared_ptr<const CollectionInfo> Catalog::FindById(storage::CollectionId id) const {
  std::shared_lock lock(mu_);
  auto it = by_id_.find(id);
  if (it != by_id_.end()) return it->second;
  // Only the transaction that created a collection knows its id before it commits.
  for (const auto& [key, created] : created_in_transactions_) {
    if (created.info->id == id) return created.info;
  }
  return nullptr;
}

std::vector<std::string> Catalog::DatabaseNames() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, collections] : databases_) names.push_back(name);
  return names;
}

std::vector<DatabaseInfo> Catalog::ListDatabases() const {
  std::vector<std::pair<std::string, std::vector<storage::CollectionId>>> snapshot;
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, collections] : databases_) {
      std::vector<storage::CollectionId> ids;
      for (const auto& [coll, info] : collections) ids.push_back(info->id);
      snapshot.emplace_back(name, std::move(ids));
    }
  }
  // Sizes come from RocksDB, outside the lock.
  std::vector<DatabaseInfo> out;
  for (const auto& [name, ids] : snapshot) {
    DatabaseInfo info;
    info.name = name;
    for (storage::CollectionId id : ids) {
      info.size_on_disk += engine_->records().ApproximateStorageSize(id);
      if (engine_->records().Count(id) > 0) info.empty = false;
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::shared_ptr<const CollectionInfo>> Catalog::ListCollections(
    std::string_view db) const {
  std::shared_lock lock(mu_);
  std::vector<std::shared_ptr<const CollectionInfo>> out;
  auto db_it = databases_.find(db);
  if (db_it == databases_.end()) return out;
  for (const auto& [name, info] : db_it->second) out.push_back(info);
  return out;
}

Status Catalog::MarkMultikey(const IndexInfo& index) {
  if (index.runtime->multikey.exchange(true)) return Status::OK();
  storage::WriteUnit unit;
  unit.PutMeta(MultikeyName(index.id), "1");
  return Commit(std::move(unit), DdlOptions{});
}

Status Catalog::MarkMultikeyPaths(const IndexInfo& index, const std::vector<std::string>& paths) {
  // One writer at a time rewrites the mark, so no path another adds is lost.
  static std::mutex marking;
  std::lock_guard marking_lock(marking);
  IndexRuntime& runtime = *index.runtime;
  std::vector<std::string> merged;
  {
    std::lock_guard lock(runtime.multikey_paths_mu);
    merged = runtime.multikey_paths;
  }
  bool added = false;
  for (const std::string& path : paths) {
    auto at = std::lower_bound(merged.begin(), merged.end(), path);
    if (at != merged.end() && *at == path) continue;
    merged.insert(at, path);
    added = true;
  }
  if (!added && runtime.multikey.load()) return Status::OK();
  storage::WriteUnit unit;
  unit.PutMeta(MultikeyName(index.id), MultikeyValue(merged));
  QUARRY_RETURN_IF_ERROR(Commit(std::move(unit), DdlOptions{}));
  {
    std::lock_guard lock(runtime.multikey_paths_mu);
    runtime.multikey_paths = std::move(merged);
  }
  runtime.multikey.store(true);
  return Status::OK();
}

void Catalog::AssignIndexIds(CollectionInfo* info, storage::WriteUnit* unit) {
  bool assigned = false;
  for (IndexInfo& index : info->indexes) {
    // The _id index is the records' own order, except under a collation: then it also keeps
    // keys, through which its uniqueness holds for strings the collation finds equal.
    if (index.id != 0 || (index.is_id_index() && !index.spec.view().Has("collation"))) continue;
    index.id = next_index_id_++;  // advanced even if the commit fails: ids are never reused
    assigned = true;
  }
  if (info->options.view().Get("capped").Truthy() && info->natural_order_index == 0) {
    info->natural_order_index = next_index_id_++;
    info->natural_position_index = next_index_id_++;
    assigned = true;
  }
  if (assigned) unit->PutMeta(std::string(kNextIndexIdName), BigEndian(next_index_id_));
}

Status Catalog::ModifyCollection(std::string_view db, std::string_view coll,
                                 const std::function<Status(CollectionInfo*)>& change,
                                 bson::DocumentView oplog_o, const DdlOptions& ddl,
                                 const std::vector<storage::IndexId>& dropped_indexes) {
  std::lock_guard ddl_lock(ddl_mu_);
  std::shared_ptr<const CollectionInfo> current = Find(db, coll);
  if (current == nullptr) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "ns does not exist: " + std::string(db) + "." + std::string(coll));
  }
  auto modified = std::make_shared<CollectionInfo>(*current);
  QUARRY_RETURN_IF_ERROR(change(modified.get()));
  QUARRY_CHECK(modified->id == current->id && modified->uuid == current->uuid &&
               modified->db == current->db && modified->name == current->name);
  storage::WriteUnit unit;
  AssignIndexIds(modified.get(), &unit);
  unit.PutCatalog(CatalogKey(db, coll), modified->ToBson().bytes());
  for (storage::IndexId index : dropped_indexes) unit.DropIndexKeys(index);
  if (!oplog_o.empty()) unit.LogCommand(current->id, db, current->uuid.view(), oplog_o);
  std::unique_lock writers(current->locks->writers);
  QUARRY_RETURN_IF_ERROR(Commit(std::move(unit), ddl));
  std::unique_lock lock(mu_);
  Publish(std::move(modified));
  return Status::OK();
}

Status Catalog::Commit(storage::WriteUnit unit, const DdlOptions& ddl) {
  QUARRY_ASSIGN_OR_RETURN(
      storage::CommitResult result,
      engine_->pipeline().Commit(
          std::move(unit), storage::CommitOptions{.ordered = true, .durability = ddl.durability}));
  if (!result.errors.empty()) return result.errors.front().status;
  return result.sync_status;
}

void Catalog::Publish(std::shared_ptr<const CollectionInfo> info) {
  by_id_[info->id] = info;
  std::string db = info->db;
  std::string name = info->name;
  databases_[db][name] = std::move(info);
}

void Catalog::Erase(std::string_view db, std::string_view coll) {
  auto db_it = databases_.find(db);
  if (db_it == databases_.end()) return;
  if (auto it = db_it->second.find(coll); it != db_it->second.end()) {
    by_id_.erase(it->second->id);
    db_it->second.erase(it);
  }
  if (db_it->second.empty()) databases_.erase(db_it);
}

StatusWith<std::shared_ptr<const CollectionInfo>> Catalog::CreateCollection(
    std::string_view db, std::string_view coll, bson::DocumentView options, const DdlOptions& ddl) {
  std::unique_lock ddl_lock(ddl_mu_);
  WaitWhileCreatedInTransaction(ddl_lock, CatalogKey(db, coll));
  if (FindLocked(db, coll) != nullptr) {
    return Status(ErrorCode::kNamespaceExists,
                  "Collection " + std::string(db) + "." + std::string(coll) + " already exists.");
  }
  return CreateLocked(db, coll, options, ddl);
}

StatusWith<std::shared_ptr<const CollectionInfo>> Catalog::EnsureCollection(std::string_view db,
                                                                            std::string_view coll,
                                                                            const DdlOptions& ddl) {
  if (auto found = Find(db, coll)) return found;
  std::unique_lock ddl_lock(ddl_mu_);
  WaitWhileCreatedInTransaction(ddl_lock, CatalogKey(db, coll));
  if (auto found = Find(db, coll)) return found;  // created while we waited
  return CreateLocked(db, coll, bson::DocumentView(), ddl);
}

StatusWith<std::shared_ptr<CollectionInfo>> Catalog::NewCollection(std::string_view db,
                                                                   std::string_view coll,
                                                                   bson::DocumentView options,
                                                                   storage::WriteUnit* counters,
                                                                   storage::WriteUnit* entry) {
  auto info = std::make_shared<CollectionInfo>();
  info->db = std::string(db);
  info->name = std::string(coll);
  info->uuid = Uuid::Random();
  info->id = next_id_++;  // advanced even if the commit fails: ids are never reused
  info->options = bson::Document::Copy(options);
  info->indexes.emplace_back().spec = IdIndexSpecFor(options);
  info->created_ms = NowMillis();

  bson::DocumentBuilder o;
  o.AppendString("create", coll);
  o.AppendElements(options);
  counters->PutMeta(std::string(kNextIdName), BigEndian(next_id_));
  AssignIndexIds(info.get(), counters);
  entry->PutCatalog(CatalogKey(db, coll), info->ToBson().bytes());
  entry->LogCommand(info->id, db, info->uuid.view(), std::move(o).Finish());
  return info;
}

StatusWith<std::shared_ptr<const CollectionInfo>> Catalog::CreateLocked(std::string_view db,
                                                                        std::string_view coll,
                                                                        bson::DocumentView options,
                                                                        const DdlOptions& ddl) {
  QUARRY_RETURN_IF_ERROR(ValidateNamespace(db, coll, ddl.allow_system_names));
  storage::WriteUnit unit;
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<CollectionInfo> info,
                          NewCollection(db, coll, options, &unit, &unit));
  QUARRY_RETURN_IF_ERROR(Commit(std::move(unit), ddl));

  std::unique_lock lock(mu_);
  Publish(info);
  return std::shared_ptr<const CollectionInfo>(info);
}

StatusWith<int> Catalog::DropCollection(std::string_view db, std::string_view coll,
                                        const DdlOptions& ddl) {
  std::lock_guard ddl_lock(ddl_mu_);
  std::shared_ptr<const CollectionInfo> info = Find(db, coll);
  if (info == nullptr) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  storage::WriteUnit unit;
  unit.DropCollectionRecords(info->id, SecondaryIndexIds(*info));
  unit.DeleteCatalog(CatalogKey(db, coll));
  LogDrop(*info, &unit);
  QUARRY_RETURN_IF_ERROR(Commit(std::move(unit), ddl));
  std::unique_lock lock(mu_);
  Erase(db, coll);
  return static_cast<int>(info->indexes.size());
}

StatusWith<int> Catalog::DropDatabase(std::string_view db, const DdlOptions& ddl) {
  std::lock_guard ddl_lock(ddl_mu_);
  std::vector<std::shared_ptr<const CollectionInfo>> collections = ListCollections(db);
  if (collections.empty()) return 0;
  storage::WriteUnit unit;
  for (const auto& info : collections) {
    unit.DropCollectionRecords(info->id, SecondaryIndexIds(*info));
    unit.DeleteCatalog(CatalogKey(db, info->name));
    LogDrop(*info, &unit);
  }
  bson::DocumentBuilder o;
  o.AppendInt32("dropDatabase", 1);
  unit.LogCommand(0, db, {}, std::move(o).Finish());
  QUARRY_RETURN_IF_ERROR(Commit(std::move(unit), ddl));
  std::unique_lock lock(mu_);
  for (const auto& info : collections) Erase(db, info->name);
  return static_cast<int>(collections.size());
}

Status Catalog::RenameCollection(std::string_view from_db, std::string_view from_coll,
                                 std::string_view to_db, std::string_view to_coll, bool drop_target,
                                 const DdlOptions& ddl) {
  std::unique_lock ddl_lock(ddl_mu_);
  WaitWhileCreatedInTransaction(ddl_lock, CatalogKey(to_db, to_coll));
  std::string from_ns = std::string(from_db) + "." + std::string(from_coll);
  std::string to_ns = std::string(to_db) + "." + std::string(to_coll);
  QUARRY_RETURN_IF_ERROR(ValidateNamespace(to_db, to_coll, ddl.allow_system_names));
  std::shared_ptr<const CollectionInfo> source = Find(from_db, from_coll);
  if (source == nullptr) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Source collection " + from_ns + " does not exist");
  }
  if (from_ns == to_ns) {
    return Status(ErrorCode::kIllegalOperation, "Can't rename a collection to itself");
  }
  std::shared_ptr<const CollectionInfo> target = Find(to_db, to_coll);
  if (target != nullptr && !drop_target) {
    return Status(ErrorCode::kNamespaceExists, "target namespace exists");
  }

  auto renamed = std::make_shared<CollectionInfo>(*source);
  renamed->db = std::string(to_db);
  renamed->name = std::string(to_coll);

  bson::DocumentBuilder o;
  o.AppendString("renameCollection", from_ns);
  o.AppendString("to", to_ns);
  o.AppendBool("stayTemp", false);
  if (target != nullptr) {
    o.AppendBinary("dropTarget", kUuidBinarySubtype, target->uuid.view());
  } else {
    o.AppendBool("dropTarget", false);
  }

  storage::WriteUnit unit;
  if (target != nullptr) {
    unit.DropCollectionRecords(target->id, SecondaryIndexIds(*target));
    unit.DeleteCatalog(CatalogKey(to_db, to_coll));
  }
  unit.DeleteCatalog(CatalogKey(from_db, from_coll));
  unit.PutCatalog(CatalogKey(to_db, to_coll), renamed->ToBson().bytes());
  unit.LogCommand(source->id, from_db, source->uuid.view(), std::move(o).Finish());
  QUARRY_RETURN_IF_ERROR(Commit(std::move(unit), ddl));

  std::unique_lock lock(mu_);
  if (target != nullptr) Erase(to_db, to_coll);
  Erase(from_db, from_coll);
  Publish(std::move(renamed));
  return Status::OK();
}

}  // namespace quarry::catalog
