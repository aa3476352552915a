// How command handlers reach a collection's records: catalog lookup, implicit creation, record
// scans adapted to query/'s RecordSource, and the durability a write concern asks for.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "catalog/catalog.h"
#include "bson/builder.h"
#include "commands/command_context.h"
#include "query/find_executor.h"
#include "storage/commit_pipeline.h"
#include "storage/oplog_entry.h"
#include "storage/types.h"

namespace quarry::catalog {
struct CollectionInfo;
}

namespace quarry::commands {

struct CollectionHandle {
  std::shared_ptr<const catalog::CollectionInfo> info;
  storage::CollectionId id = 0;
  std::string db;
  std::string name;
  std::string ns;    // "db.name"
  std::string uuid;  // 16 bytes
  bool pre_and_post_images = false;  // changeStreamPreAndPostImages enabled

  // How the collection's record changes are logged.
  storage::CollectionRef ref() const { return {id, ns, uuid, pre_and_post_images}; }
};

// The collection, or nullopt when it does not exist.
std::optional<CollectionHandle> LookupCollection(CommandContext& ctx, const std::string& db,
                                                 const std::string& name);

// The collection, created (with its database) when missing, as inserts and upserts do.
StatusWith<CollectionHandle> EnsureCollection(CommandContext& ctx, const std::string& db,
                                              const std::string& name);

// Opens the collection's records in _id order after a given storage key. With a `filter`
// that pins _id to one value, opens just that record (a point lookup instead of a scan).
query::RecordSourceFactory RecordsOf(CommandContext& ctx, const CollectionHandle& collection,
                                     bson::DocumentView filter = bson::DocumentView());

// DDL options for the request's write concern (j:true makes the catalog change durable too).
catalog::DdlOptions DdlOptionsFor(const CommandContext& ctx);

// Commit options for the request's write concern.
storage::CommitOptions CommitOptionsFor(const CommandContext& ctx, bool ordered);

}  // namespace quarry::commands
