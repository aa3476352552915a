// listIndexes and dropIndexes (createIndexes is in create_indexes.cc). The _id index is the
// records' own order: it always exists and cannot be dropped.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/compare.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/ddl/clustered_index.h"
#include "commands/execution.h"
#include "commands/indexes/index_specs.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

StatusWith<bson::Document> RunListIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  args.Raw("cursor");
  args.Ignore({"includeBuildUUIDs", "includeIndexBuildInfo"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  std::string ns = request.db + "." + coll;
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns);
  }
  query::Batch batch;
  for (const catalog::IndexInfo& index : collection->info->indexes) {
    if (!index.ready) continue;  // being built
    std::optional<bson::Document> clustered;
    if (index.is_id_index()) clustered = ClusteredIndexEntry(*collection->info);
    batch.documents.push_back(clustered.has_value() ? std::move(*clustered) : index.spec);
    batch.bytes += batch.documents.back().size();
  }
  return BuildCursorReply("firstBatch", batch, 0, ns);
}

// Which indexes a dropIndexes `index` argument names: a name, a key pattern, "*" or a list.
StatusWith<std::vector<std::string>> IndexesToDrop(const catalog::CollectionInfo& info,
                                                   bson::ValueView index) {
  std::vector<std::string> names;
  auto by_name = [&](std::string_view name) -> Status {
    if (name == "_id_") return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
    if (info.FindIndex(name) != nullptr) {
      names.emplace_back(name);
      return Status::OK();
    }
    return Status(ErrorCode::kIndexNotFound,
                  "index not found with name [" + std::string(name) + "]");
  };
  if (index.type() == bson::Type::kString && index.String() == "*") {
    for (const catalog::IndexInfo& spec : info.indexes) {
      if (!spec.is_id_index()) names.emplace_back(spec.name());
    }
  } else if (index.type() == bson::Type::kString) {
    QUARRY_RETURN_IF_ERROR(by_name(index.String()));
  } else if (index.type() == bson::Type::kArray) {
    for (const bson::Element& e : index.Document()) {
      if (e.value.type() != bson::Type::kString) {
        return Status(ErrorCode::kTypeMismatch, "dropIndexes index names must be strings");
      }
      QUARRY_RETURN_IF_ERROR(by_name(e.value.String()));
    }
  } else if (index.type() == bson::Type::kDocument) {
    if (IsIdIndexKey(index.Document()))
      return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
    // Indexes of one key pattern under different collations are told apart by name only.
    std::vector<const catalog::IndexInfo*> matches;
    for (const catalog::IndexInfo& spec : info.indexes) {
      if (bson::CompareDocuments(spec.key(), index.Document()) == 0) matches.push_back(&spec);
    }
    if (matches.empty()) {
      return Status(ErrorCode::kIndexNotFound,
                    "can't find index with key: " + index.Document().ToJson());
    }
    if (matches.size() > 1) {
      return Status(
          ErrorCode::kAmbiguousIndexKeyPattern,
          std::to_string(matches.size()) + " indexes found for key: " + index.Document().ToJson() +
              ", identify by name instead. Conflicting indexes: " + matches[0]->spec.ToJson() +
              ", " + matches[1]->spec.ToJson());
    }
    names.emplace_back(matches.front()->name());
  } else {
    return Status(ErrorCode::kTypeMismatch,
                  "dropIndexes 'index' must be a string, an array of strings or an object");
  }
  return names;
}

StatusWith<bson::Document> RunDropIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  bson::ValueView index = args.Raw("index");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns not found " + request.db + "." + coll);
  }
  // After any build of the collection's indexes in progress.
  std::lock_guard index_ddl(collection->info->locks->index_ddl);
  QUARRY_ASSIGN_OR_RETURN(collection, LookupCollection(ctx, request.db, coll));
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns not found " + request.db + "." + coll);
  }
  const catalog::CollectionInfo& info = *collection->info;
  auto count = static_cast<std::int32_t>(info.indexes.size());
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> names, IndexesToDrop(info, index));
  if (!names.empty()) {
    std::vector<storage::IndexId> ids;
    for (const std::string& name : names) ids.push_back(info.FindIndex(name)->id);
    bson::DocumentBuilder o;
    o.AppendString("dropIndexes", coll);
    o.Append("index", index);
    auto drop = [&names](catalog::CollectionInfo* info) {
      std::erase_if(info->indexes, [&names](const catalog::IndexInfo& spec) {
        return std::ranges::find(names, spec.name()) != names.end();
      });
      return Status::OK();
    };
    QUARRY_RETURN_IF_ERROR(ctx.catalog().ModifyCollection(
        request.db, coll, drop, std::move(o).Finish(), DdlOptionsFor(ctx), ids));
  }
  bson::DocumentBuilder b;
  b.AppendInt32("nIndexesWas", count);
  return std::move(b).Finish();
}

}  // namespace

void RegisterIndexCommands(CommandRegistry& registry) {
  RegisterCreateIndexesCommand(registry);
  registry.Add({.name = "listIndexes",
                .run = RunListIndexes,
                .auth = OnNamespace({auth::ActionType::kListIndexes})});
  registry.Add({.name = "dropIndexes",
                .flags = kChangesStoredData,
                .run = RunDropIndexes,
                .aliases = {"deleteIndexes"},
                .auth = OnNamespace({auth::ActionType::kDropIndex})});
}

}  // namespace quarry::commands
