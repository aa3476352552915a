// createIndexes, listIndexes, dropIndexes. Every collection has its clustered _id index;
// secondary indexes are not built yet, so asking for one fails clearly rather than pretending.
#include <string>

#include "bson/builder.h"
#include "bson/compare.h"
#include "catalog/collection_info.h"
#include "commands/collection_access.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/register.h"
#include "commands/request_parser.h"

namespace quarry::commands {
namespace {

bool IsIdIndexKey(bson::DocumentView key) {
  if (key.CountElements() != 1 || key.FirstKey() != "_id") return false;
  bson::ValueView direction = key.Get("_id");
  return direction.IsNumber() && direction.AsDouble() == 1.0;
}

StatusWith<bson::Document> RunCreateIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  bson::ValueView indexes = args.Raw("indexes");
  args.Ignore({"commitQuorum", "ignoreUnknownIndexOptions"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (indexes.type() != bson::Type::kArray || indexes.Document().empty()) {
    return Status(ErrorCode::kBadValue, "Must specify at least one index to create");
  }
  for (const bson::Element& e : indexes.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch, "The 'indexes' entries must be objects");
    }
    bson::DocumentView spec = e.value.Document();
    bson::ValueView key = spec.Get("key");
    if (key.type() != bson::Type::kDocument || key.Document().empty()) {
      return Status(ErrorCode::kCannotCreateIndex, "index spec must have a non-empty 'key' object");
    }
    bson::ValueView name = spec.Get("name");
    if (name.type() != bson::Type::kString) {
      return Status(ErrorCode::kCannotCreateIndex, "index spec must have a 'name' string");
    }
    if (!IsIdIndexKey(key.Document())) {
      return Status(ErrorCode::kCannotCreateIndex,
                    "secondary indexes are not supported by Quarry yet (index '" +
                        std::string(name.String()) + "' on " + key.Document().ToJson() +
                        "); queries on any field work without one");
    }
    if (name.String() != "_id_") {
      return Status(ErrorCode::kIndexOptionsConflict,
                    "Index already exists with a different name: _id_");
    }
  }
  bool existed = LookupCollection(ctx, request.db, coll).has_value();
  QUARRY_ASSIGN_OR_RETURN(CollectionHandle collection, EnsureCollection(ctx, request.db, coll));
  std::int32_t count = static_cast<std::int32_t>(collection.info->indexes.size());
  bson::DocumentBuilder b;
  b.AppendInt32("numIndexesBefore", count);
  b.AppendInt32("numIndexesAfter", count);
  b.AppendBool("createdCollectionAutomatically", !existed);
  b.AppendString("note", "all indexes already exist");
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunListIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  args.Raw("cursor");
  args.Ignore({"includeBuildUUIDs", "includeIndexBuildInfo"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  std::optional<CollectionHandle> collection = LookupCollection(ctx, request.db, coll);
  std::string ns = request.db + "." + coll;
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns);
  }
  query::Batch batch;
  for (const bson::Document& spec : collection->info->indexes) {
    batch.bytes += spec.size();
    batch.documents.push_back(spec);
  }
  return BuildCursorReply("firstBatch", batch, 0, ns);
}

StatusWith<bson::Document> RunDropIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  bson::ValueView index = args.Raw("index");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  std::optional<CollectionHandle> collection = LookupCollection(ctx, request.db, coll);
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns not found " + request.db + "." + coll);
  }
  std::int32_t count = static_cast<std::int32_t>(collection->info->indexes.size());
  bool names_id = (index.type() == bson::Type::kString && index.String() == "_id_") ||
                  (index.type() == bson::Type::kDocument && IsIdIndexKey(index.Document()));
  bool is_all = index.type() == bson::Type::kString && index.String() == "*";
  if (names_id) return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
  if (!is_all) {
    std::string what = index.type() == bson::Type::kString ? std::string(index.String()) : index.ToJson();
    return Status(ErrorCode::kIndexNotFound, "index not found with name [" + what + "]");
  }
  bson::DocumentBuilder b;
  b.AppendInt32("nIndexesWas", count);
  if (is_all) b.AppendString("msg", "non-_id indexes dropped for collection");
  return std::move(b).Finish();
}

}  // namespace

void RegisterIndexCommands(CommandRegistry& registry) {
  registry.Add({.name = "createIndexes", .run = RunCreateIndexes});
  registry.Add({.name = "listIndexes", .run = RunListIndexes});
  registry.Add({.name = "dropIndexes", .run = RunDropIndexes, .aliases = {"deleteIndexes"}});
}

}  // namespace quarry::commands
