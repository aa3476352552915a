// A collection as execution uses it: its catalog entry, where its records live and how its
// changes are logged.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "base/status.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "storage/oplog_entry.h"
#include "storage/types.h"

namespace quarry::exec {

struct Collection {
  std::shared_ptr<const catalog::CollectionInfo> info;
  storage::CollectionId id = 0;
  std::string db;
  std::string name;
  std::string ns;                    // "db.name"
  std::string uuid;                  // 16 bytes
  bool pre_and_post_images = false;  // changeStreamPreAndPostImages enabled

  // How the collection's record changes are logged. Valid while this Collection is.
  storage::CollectionRef ref() const { return {id, ns, uuid, pre_and_post_images}; }
};

// The collection whose catalog entry is `info`.
Collection CollectionOf(std::shared_ptr<const catalog::CollectionInfo> info);

// The collection, or nullopt when it does not exist. Inside a multi-document transaction
// (`txn`), also one the transaction created.
std::optional<Collection> LookupCollection(const catalog::Catalog& catalog, std::string_view db,
                                           std::string_view name,
                                           const storage::Transaction* txn = nullptr);

// `collection` as it is now, with its writers lock held exclusively: no write of it commits
// until `writers` is let go (validate's checks). NamespaceNotFound if it was dropped meanwhile.
struct HeldCollection {
  Collection collection;  // first: it keeps the lock alive until `writers` lets go
  std::unique_lock<std::shared_mutex> writers;
};
StatusWith<HeldCollection> HoldWriters(const catalog::Catalog& catalog,
                                       const Collection& collection);

// The collection, created (with its database) when missing, as inserts and upserts do; inside
// a multi-document transaction (`txn`), created in the transaction. A view fails with 166
// CommandNotSupportedOnView: nothing is written to one.
StatusWith<Collection> EnsureCollection(catalog::Catalog& catalog, std::string_view db,
                                        std::string_view name, const catalog::DdlOptions& ddl,
                                        storage::Transaction* txn = nullptr);

}  // namespace quarry::exec
