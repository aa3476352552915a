// createIndexes, listIndexes, dropIndexes. The clustered _id index always exists. Secondary
// index specs are validated and recorded in the catalog (listIndexes shows them, conflicts are
// detected as mongod does), but not built yet: every query is still answered by a scan, which
// gives the same results. Unique secondary indexes are refused, because recording one without
// enforcing it would let duplicates in.
#include <algorithm>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/compare.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/cursor_reply.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/unsupported_options.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kMaxIndexesPerCollection = 64;

bool IsIdIndexKey(bson::DocumentView key) {
  if (key.CountElements() != 1 || key.FirstKey() != "_id") return false;
  bson::ValueView direction = key.Get("_id");
  return direction.IsNumber() && direction.AsDouble() == 1.0;
}

bool SameKey(bson::DocumentView a, bson::DocumentView b) {
  return bson::CompareDocuments(a, b) == 0;
}

// Checks one spec and returns it as stored: {v: 2, key, name, <options>}.
StatusWith<bson::Document> NormalizeSpec(bson::DocumentView spec) {
  bson::ValueView key = spec.Get("key");
  if (key.type() != bson::Type::kDocument || key.Document().empty()) {
    return Status(ErrorCode::kCannotCreateIndex, "index spec must have a non-empty 'key' object");
  }
  for (const bson::Element& field : key.Document()) {
    if (field.value.IsNumber() && field.value.AsDouble() != 0) continue;
    if (field.value.type() == bson::Type::kString) {
      return Status(
          ErrorCode::kCannotCreateIndex,
          "index type '" + std::string(field.value.String()) + "' is not supported by Quarry yet");
    }
    return Status(ErrorCode::kCannotCreateIndex,
                  "Values in the index key pattern can only be numbers or strings, got " +
                      field.value.ToJson() + " for field " + std::string(field.key));
  }
  bson::ValueView name = spec.Get("name");
  if (name.type() != bson::Type::kString || name.String().empty()) {
    return Status(ErrorCode::kCannotCreateIndex, "index spec must have a non-empty 'name' string");
  }
  QUARRY_RETURN_IF_ERROR(CheckCollation(spec.Get("collation"), "createIndexes.indexes."));
  bson::ValueView unique = spec.Get("unique");
  if (unique.exists() && unique.Truthy() && !IsIdIndexKey(key.Document())) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "unique secondary indexes are not supported by Quarry yet (index '" +
                      std::string(name.String()) + "')");
  }
  bson::DocumentBuilder b;
  b.AppendInt32("v", 2);
  b.AppendDocument("key", key.Document());
  b.AppendString("name", name.String());
  for (const bson::Element& e : spec) {
    if (e.key != "v" && e.key != "key" && e.key != "name" && e.key != "ns")
      b.Append(e.key, e.value);
  }
  return std::move(b).Finish();
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
  std::vector<bson::Document> specs;
  for (const bson::Element& e : indexes.Document()) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch, "The 'indexes' entries must be objects");
    }
    QUARRY_ASSIGN_OR_RETURN(bson::Document spec, NormalizeSpec(e.value.Document()));
    specs.push_back(std::move(spec));
  }
  bool existed = LookupCollection(ctx, request.db, coll).has_value();
  QUARRY_ASSIGN_OR_RETURN(exec::Collection collection, EnsureCollection(ctx, request.db, coll));
  auto before = static_cast<std::int32_t>(collection.info->indexes.size());
  std::int32_t after = before;

  auto add_specs = [&](catalog::CollectionInfo* info) -> Status {
    for (const bson::Document& spec : specs) {
      bson::DocumentView key = spec.Get("key").Document();
      std::string_view name = spec.Get("name").String();
      // Every collection has its _id index already, whatever name the request gives it (mongod
      // accepts pymongo's create_index("_id") as a no-op).
      if (IsIdIndexKey(key)) continue;
      bool exists = false;
      for (const bson::Document& existing : info->indexes) {
        bson::DocumentView existing_key = existing.Get("key").Document();
        bool same_name = existing.Get("name").String() == name;
        bool same_key = SameKey(existing_key, key);
        if (same_name && same_key) {
          exists = true;
          break;
        }
        if (same_name) {
          return Status(ErrorCode::kIndexKeySpecsConflict,
                        "An existing index has the same name as the requested index but a "
                        "different key. Requested index: " +
                            spec.ToJson() + ", existing index: " + existing.ToJson());
        }
        if (same_key) {
          return Status(ErrorCode::kIndexOptionsConflict,
                        "Index already exists with a different name: " +
                            std::string(existing.Get("name").String()));
        }
      }
      if (exists) continue;
      if (info->indexes.size() >= kMaxIndexesPerCollection) {
        return Status(ErrorCode::kCannotCreateIndex,
                      "add index fails, too many indexes for " + request.db + "." + coll);
      }
      info->indexes.push_back(spec);
    }
    after = static_cast<std::int32_t>(info->indexes.size());
    return Status::OK();
  };
  // Check first, so that an unchanged catalog writes no oplog entry.
  {
    catalog::CollectionInfo probe = *collection.info;
    QUARRY_RETURN_IF_ERROR(add_specs(&probe));
  }
  bson::DocumentBuilder b;
  if (after != before) {
    bson::DocumentBuilder o;
    o.AppendString("createIndexes", coll);
    o.AppendArray("indexes", indexes.Document());
    QUARRY_RETURN_IF_ERROR(ctx.catalog().ModifyCollection(
        request.db, coll, add_specs, std::move(o).Finish(), DdlOptionsFor(ctx)));
  }
  b.AppendInt32("numIndexesBefore", before);
  b.AppendInt32("numIndexesAfter", after);
  b.AppendBool("createdCollectionAutomatically", !existed);
  if (after == before) b.AppendString("note", "all indexes already exist");
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunListIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  args.Raw("cursor");
  args.Ignore({"includeBuildUUIDs", "includeIndexBuildInfo"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  std::optional<exec::Collection> collection = LookupCollection(ctx, request.db, coll);
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

// Which indexes a dropIndexes `index` argument names: a name, a key pattern, "*" or a list.
StatusWith<std::vector<std::string>> IndexesToDrop(const catalog::CollectionInfo& info,
                                                   bson::ValueView index) {
  std::vector<std::string> names;
  auto by_name = [&](std::string_view name) -> Status {
    if (name == "_id_") return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
    for (const bson::Document& spec : info.indexes) {
      if (spec.Get("name").String() == name) {
        names.emplace_back(name);
        return Status::OK();
      }
    }
    return Status(ErrorCode::kIndexNotFound,
                  "index not found with name [" + std::string(name) + "]");
  };
  if (index.type() == bson::Type::kString && index.String() == "*") {
    for (const bson::Document& spec : info.indexes) {
      if (spec.Get("name").String() != "_id_") names.emplace_back(spec.Get("name").String());
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
    for (const bson::Document& spec : info.indexes) {
      if (SameKey(spec.Get("key").Document(), index.Document())) {
        names.emplace_back(spec.Get("name").String());
        return names;
      }
    }
    return Status(ErrorCode::kIndexNotFound,
                  "can't find index with key: " + index.Document().ToJson());
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
  std::optional<exec::Collection> collection = LookupCollection(ctx, request.db, coll);
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns not found " + request.db + "." + coll);
  }
  auto count = static_cast<std::int32_t>(collection->info->indexes.size());
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> names, IndexesToDrop(*collection->info, index));
  if (!names.empty()) {
    bson::DocumentBuilder o;
    o.AppendString("dropIndexes", coll);
    o.Append("index", index);
    auto drop = [&names](catalog::CollectionInfo* info) {
      std::erase_if(info->indexes, [&names](const bson::Document& spec) {
        return std::find(names.begin(), names.end(), spec.Get("name").String()) != names.end();
      });
      return Status::OK();
    };
    QUARRY_RETURN_IF_ERROR(ctx.catalog().ModifyCollection(
        request.db, coll, drop, std::move(o).Finish(), DdlOptionsFor(ctx)));
  }
  bson::DocumentBuilder b;
  b.AppendInt32("nIndexesWas", count);
  return std::move(b).Finish();
}

}  // namespace

void RegisterIndexCommands(CommandRegistry& registry) {
  registry.Add({.name = "createIndexes", .run = RunCreateIndexes});
  registry.Add({.name = "listIndexes", .run = RunListIndexes});
  registry.Add({.name = "dropIndexes", .run = RunDropIndexes, .aliases = {"deleteIndexes"}});
}

}  // namespace quarry::commands
