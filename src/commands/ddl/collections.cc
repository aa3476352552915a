// create, drop, dropDatabase, renameCollection, listCollections, listDatabases.
#include <algorithm>
#include <string>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "collation/collator.h"
#include "commands/auth/authorizer.h"
#include "commands/command_context.h"
#include "commands/crud/document_validator.h"
#include "commands/cursor_reply.h"
#include "commands/ddl/capped_options.h"
#include "commands/ddl/clustered_index.h"
#include "commands/diagnostics/profiler.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "commands/service_state.h"
#include "commands/views/view_definition.h"
#include "cursors/cursor_manager.h"
#include "query/match/matcher.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

// The fields of mongod 7.0's create command (create.idl); any other fails as mongod's parser
// fails it, rather than being stored as an option.
constexpr std::string_view kCreateFields[] = {"capped",
                                              "autoIndexId",
                                              "idIndex",
                                              "size",
                                              "max",
                                              "storageEngine",
                                              "validator",
                                              "validationLevel",
                                              "validationAction",
                                              "indexOptionDefaults",
                                              "viewOn",
                                              "pipeline",
                                              "collation",
                                              "timeseries",
                                              "clusteredIndex",
                                              "changeStreamPreAndPostImages",
                                              "expireAfterSeconds",
                                              "encryptedFields",
                                              "flags",
                                              "temp"};

// Options of create that Quarry honours or can safely record; the rest fail clearly.
Status CheckCreateOptions(std::string_view db, std::string_view coll, bson::DocumentView body) {
  for (const bson::Element& e : body) {
    std::string_view key = e.key;
    if (key == "create" || IsGenericArgument(key)) continue;
    if (std::find(std::begin(kCreateFields), std::end(kCreateFields), key) ==
        std::end(kCreateFields)) {
      return Status(ErrorCode::kLocation40415,
                    "BSON field 'create." + std::string(key) + "' is an unknown field.");
    }
    if (body.Has("viewOn") && key != "viewOn" && key != "pipeline" && key != "collation") {
      return Status(ErrorCode::kInvalidOptions,
                    "option not supported on a view: " + std::string(key));
    }
    if (key == "pipeline" && !body.Has("viewOn")) {
      return Status(ErrorCode::kInvalidOptions,
                    "'pipeline' requires 'viewOn' to also be specified");
    }
    if (key == "timeseries" || key == "encryptedFields") {
      return Status(ErrorCode::kCommandNotSupported,
                    "create option '" + std::string(key) + "' is not supported by Quarry yet");
    }
    if (key == "validator" && e.value.type() == bson::Type::kDocument) {
      QUARRY_RETURN_IF_ERROR(CheckValidatorFilter(e.value.Document()));
    }
    if (key == "clusteredIndex") {
      StatusWith<bson::Document> clustered = ClusteredIndexSpec(e.value);
      if (!clustered.ok()) return clustered.status();
    }
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<CappedOptions> capped, ParseCreateCapped(body));
  if (capped.has_value() && body.Has("clusteredIndex")) {
    return Status(ErrorCode::kNotImplemented,
                  "capped clustered collections are not supported by Quarry");
  }
  if (body.Has("clusteredIndex")) {
    if (body.Has("idIndex")) {
      return Status(ErrorCode::kInvalidOptions,
                    "The 'clusteredIndex' option is not supported with the 'idIndex' option");
    }
    if (body.Has("autoIndexId") && !body.Get("autoIndexId").Truthy()) {
      return Status(static_cast<ErrorCode>(6026501),
                    "The 'clusteredIndex' option does not support {autoIndexId: false}");
    }
    if (body.Has("expireAfterSeconds")) {
      return Status(ErrorCode::kNotImplemented,
                    "'expireAfterSeconds' on a clustered collection is not supported by Quarry "
                    "yet");
    }
  }
  // Time-series collections, the only others it applies to, were refused above.
  if (body.Has("expireAfterSeconds")) {
    return Status(ErrorCode::kInvalidOptions,
                  "'expireAfterSeconds' is only supported on time-series collections or when the "
                  "'clusteredIndex' option is specified");
  }
  if (body.Has("autoIndexId") && !body.Get("autoIndexId").Truthy()) {
    if (db != "local") {
      return Status(static_cast<ErrorCode>(50001),
                    "autoIndexId:false is not allowed for collection " + std::string(db) + "." +
                        std::string(coll) + " because it can be replicated");
    }
    return Status(ErrorCode::kNotImplemented,
                  "collections without an _id index are not supported by Quarry: records are kept "
                  "by their _id");
  }
  return Status::OK();
}

StatusWith<bson::Document> RunCreate(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckCreateOptions(request.db, coll, request.body));
  if (IsReplicationCollection(ctx.service(), request.db, coll)) {
    return Status(ErrorCode::kNamespaceExists,
                  "Collection " + request.db + "." + coll + " already exists.");
  }
  bson::DocumentBuilder options;
  QUARRY_ASSIGN_OR_RETURN(std::optional<CappedOptions> capped, ParseCreateCapped(request.body));
  if (capped.has_value()) AppendCappedOptions(*capped, &options);
  for (const bson::Element& e : request.body) {
    if (e.key == "create" || IsGenericArgument(e.key)) continue;
    if (e.key == "capped" || e.key == "size" || e.key == "max") continue;
    if (e.key == "clusteredIndex") {
      QUARRY_ASSIGN_OR_RETURN(bson::Document spec, ClusteredIndexSpec(e.value));
      options.AppendDocument("clusteredIndex", spec);
      continue;
    }
    if (e.key == "collation") {
      // Stored fully specified, as mongod lists it; the simple collation is no default at all.
      QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                              collation::Collator::ParseArgument(e.value, "create."));
      if (collator != nullptr) options.AppendDocument("collation", collator->spec());
      continue;
    }
    options.Append(e.key, e.value);
  }
  bson::Document options_doc = std::move(options).Finish();
  if (request.body.Has("viewOn")) {
    QUARRY_ASSIGN_OR_RETURN(
        options_doc, ViewOptions(ctx, request.db, coll,
                                 {.view_on = request.body.Get("viewOn"),
                                  .pipeline = request.body.Get("pipeline"),
                                  .collation = options_doc.view().Get("collation").type() ==
                                                       bson::Type::kDocument
                                                   ? options_doc.view().Get("collation").Document()
                                                   : bson::DocumentView()},
                                 "create"));
  }
  StatusWith<std::shared_ptr<const catalog::CollectionInfo>> created = Status::OK();
  if (ctx.transaction() != nullptr) {
    QUARRY_RETURN_IF_ERROR(CheckTransactionMayCreate(ctx, "a collection"));
    if (options_doc.view().Has("viewOn")) {
      return Status(ErrorCode::kOperationNotSupportedInTransaction,
                    "Cannot create a view in a multi-document transaction.");
    }
    if (capped.has_value()) {
      return Status(ErrorCode::kOperationNotSupportedInTransaction,
                    "Cannot create a capped collection in a multi-document transaction.");
    }
    created = ctx.catalog().CreateInTransaction(request.db, coll, options_doc, *ctx.transaction());
  } else {
    created = ctx.catalog().CreateCollection(request.db, coll, options_doc, DdlOptionsFor(ctx));
  }
  if (!created.ok()) {
    if (created.status().code() == ErrorCode::kNamespaceExists) {
      // mongod 7.0 accepts a create that repeats the existing collection's options, except
      // inside a transaction.
      std::shared_ptr<const catalog::CollectionInfo> existing =
          ctx.catalog().Find(request.db, coll);
      if (ctx.transaction() == nullptr && existing != nullptr &&
          existing->options.bytes() == options_doc.bytes()) {
        return bson::Document();
      }
      return Status(ErrorCode::kNamespaceExists,
                    "Collection " + request.db + "." + coll + " already exists.");
    }
    return created.status();
  }
  return bson::Document();
}

// A dropped collection's search indexes leave memory with it.
void ForgetSearchIndexes(CommandContext& ctx, const catalog::CollectionInfo* dropped) {
  if (dropped != nullptr && ctx.service().search_indexes != nullptr) {
    ctx.service().search_indexes->DropCollection(dropped->id);
  }
}

StatusWith<bson::Document> RunDrop(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckDrop(ctx.service(), request.db, coll));
  std::string ns = request.db + "." + coll;
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(request.db, coll);
  StatusWith<int> dropped = ctx.catalog().DropCollection(request.db, coll, DdlOptionsFor(ctx));
  if (!dropped.ok()) {
    // mongod 7.0 answers ok for a collection that does not exist.
    if (dropped.status().code() == ErrorCode::kNamespaceNotFound) return bson::Document();
    return dropped.status();
  }
  ctx.cursors().KillNamespace(ns);
  ForgetSearchIndexes(ctx, info.get());
  bson::DocumentBuilder b;
  if (info == nullptr || !info->is_view()) b.AppendInt32("nIndexesWas", dropped.value());
  b.AppendString("ns", ns);
  return std::move(b).Finish();
}

// mongod's refusals (drop_database.cpp): admin always, local while it is a replica set member.
Status CheckDatabaseDroppable(const ServiceState& service, std::string_view db) {
  if (db == "admin") {
    return Status(ErrorCode::kIllegalOperation, "Dropping the 'admin' database is prohibited.");
  }
  if (db == "local" && !service.config.repl_set.empty()) {
    return Status(ErrorCode::kIllegalOperation,
                  "Cannot drop 'local' database while replication is active");
  }
  return Status::OK();
}

StatusWith<bson::Document> RunDropDatabase(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckDatabaseDroppable(ctx.service(), request.db));
  std::vector<std::shared_ptr<const catalog::CollectionInfo>> collections =
      ctx.catalog().ListCollections(request.db);
  for (const auto& info : collections) ctx.cursors().KillNamespace(info->ns());
  QUARRY_ASSIGN_OR_RETURN(int dropped, ctx.catalog().DropDatabase(request.db, DdlOptionsFor(ctx)));
  (void)dropped;
  for (const auto& info : collections) ForgetSearchIndexes(ctx, info.get());
  GlobalProfiler().Drop(request.db);
  bson::DocumentBuilder b;
  b.AppendString("dropped", request.db);
  return std::move(b).Finish();
}

// Splits "db.coll" at its first dot.
StatusWith<std::pair<std::string, std::string>> SplitNamespace(bson::ValueView value,
                                                               std::string_view field) {
  if (value.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch, "'" + std::string(field) + "' must be of type String");
  }
  std::string_view ns = value.String();
  std::size_t dot = ns.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == ns.size()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "Invalid namespace specified '" + std::string(ns) + "'");
  }
  return std::make_pair(std::string(ns.substr(0, dot)), std::string(ns.substr(dot + 1)));
}

StatusWith<bson::Document> RunRenameCollection(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView from = args.Raw("renameCollection");
  bson::ValueView to = args.Raw("to");
  QUARRY_ASSIGN_OR_RETURN(bool drop_target, args.OptionalBool("dropTarget", false));
  args.Ignore({"stayTemp"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(auto source, SplitNamespace(from, "renameCollection"));
  QUARRY_ASSIGN_OR_RETURN(auto target, SplitNamespace(to, "to"));
  if (IsReplicationCollection(ctx.service(), source.first, source.second)) {
    return Status(ErrorCode::kIllegalOperation, "can't rename live oplog while replicating");
  }
  if (IsReplicationCollection(ctx.service(), target.first, target.second)) {
    return Status(ErrorCode::kIllegalOperation, "can't rename to live oplog while replicating");
  }
  std::shared_ptr<const catalog::CollectionInfo> renamed =
      ctx.catalog().Find(source.first, source.second);
  if (renamed != nullptr && renamed->is_view()) {
    return Status(ErrorCode::kCommandNotSupportedOnView,
                  "cannot rename view: " + source.first + "." + source.second);
  }
  std::shared_ptr<const catalog::CollectionInfo> replaced =
      ctx.catalog().Find(target.first, target.second);
  if (replaced != nullptr && replaced->is_view()) {
    return Status(ErrorCode::kNamespaceExists,
                  "a view already exists with that name: " + target.first + "." + target.second);
  }
  QUARRY_RETURN_IF_ERROR(ctx.catalog().RenameCollection(
      source.first, source.second, target.first, target.second, drop_target, DdlOptionsFor(ctx)));
  ForgetSearchIndexes(ctx, replaced.get());
  ctx.cursors().KillNamespace(source.first + "." + source.second);
  return bson::Document();
}

bson::Document CollectionEntry(const catalog::CollectionInfo& info, bool name_only) {
  bson::DocumentBuilder b;
  b.AppendString("name", info.name);
  b.AppendString("type", info.is_view() ? "view" : "collection");
  if (name_only) return std::move(b).Finish();
  b.AppendDocument("options", info.options);
  if (info.is_view()) {  // mongod lists a view with neither uuid nor idIndex
    b.OpenDocument("info").AppendBool("readOnly", true).Close();
    return std::move(b).Finish();
  }
  b.OpenDocument("info")
      .AppendBool("readOnly", false)
      .AppendBinary("uuid", catalog::kUuidBinarySubtype, info.uuid.view())
      .Close();
  // A clustered collection has no _id index to list, as in mongod.
  if (!info.options.view().Has("clusteredIndex")) {
    b.AppendDocument("idIndex", info.indexes.front().spec);
  }
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunListCollections(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView filter, args.OptionalDocument("filter"));
  QUARRY_ASSIGN_OR_RETURN(bool name_only, args.OptionalBool("nameOnly", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView cursor, args.OptionalDocument("cursor"));
  args.Ignore({"authorizedCollections", "includePendingDrops"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  (void)cursor;
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  query::Batch batch;
  auto add = [&](bson::Document entry) {
    if (matcher.Matches(entry)) {
      batch.bytes += entry.size();
      batch.documents.push_back(std::move(entry));
    }
  };
  for (const auto& info : ctx.catalog().ListCollections(request.db)) {
    add(CollectionEntry(*info, name_only));
  }
  if (request.db == "local") {
    for (bson::Document& entry : ReplicationCollectionEntries(ctx.service(), name_only)) {
      add(std::move(entry));
    }
  }
  if (std::optional<bson::Document> profile = ProfileCollectionEntry(request.db, name_only)) {
    add(std::move(*profile));
  }
  return BuildCursorReply("firstBatch", batch, 0, request.db + ".$cmd.listCollections");
}

// The catalog's databases and mongod's own three, which a mongod always lists: admin and config
// (empty here until a client writes to them) and local (the oplog, while a replica set member).
std::vector<catalog::DatabaseInfo> WithSystemDatabases(CommandContext& ctx) {
  std::vector<catalog::DatabaseInfo> databases = ctx.catalog().ListDatabases();
  auto find = [&databases](std::string_view name) {
    return std::find_if(databases.begin(), databases.end(),
                        [name](const catalog::DatabaseInfo& db) { return db.name == name; });
  };
  for (std::string_view name : {"admin", "config", "local"}) {
    if (find(name) == databases.end()) databases.push_back({.name = std::string(name)});
  }
  if (!ctx.service().config.repl_set.empty() && ctx.service().oplog_bytes) {
    auto local = find("local");
    local->size_on_disk += ctx.service().oplog_bytes();
    local->empty = false;
  }
  std::sort(databases.begin(), databases.end(),
            [](const catalog::DatabaseInfo& a, const catalog::DatabaseInfo& b) {
              return a.name < b.name;
            });
  return databases;
}

StatusWith<bson::Document> RunListDatabases(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView filter, args.OptionalDocument("filter"));
  QUARRY_ASSIGN_OR_RETURN(bool name_only, args.OptionalBool("nameOnly", false));
  bson::ValueView authorized_databases = args.Raw("authorizedDatabases");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter));
  const std::optional<std::function<bool(std::string_view)>> authorized =
      AuthorizedDatabases(ctx, authorized_databases);
  std::int64_t total = 0;
  bson::DocumentBuilder b;
  b.OpenArray("databases");
  std::size_t i = 0;
  for (const catalog::DatabaseInfo& db : WithSystemDatabases(ctx)) {
    if (authorized.has_value() && !(*authorized)(db.name)) continue;
    bson::DocumentBuilder entry;
    entry.AppendString("name", db.name);
    if (!name_only) {
      entry.AppendInt64("sizeOnDisk", static_cast<std::int64_t>(db.size_on_disk));
      entry.AppendBool("empty", db.empty);
    }
    bson::Document doc = std::move(entry).Finish();
    if (!matcher.Matches(doc)) continue;
    total += static_cast<std::int64_t>(db.size_on_disk);
    b.AppendDocument(std::to_string(i++), doc);
  }
  b.Close();
  if (!name_only) {
    b.AppendInt64("totalSize", total);
    b.AppendInt64("totalSizeMb", total / (1024 * 1024));
  }
  return std::move(b).Finish();
}

}  // namespace

void RegisterDdlCommands(CommandRegistry& registry) {
  registry.Add({.name = "create",
                .flags = kAllowedInTransaction | kChangesStoredData,
                .run = RunCreate,
                .auth = OnNamespace({auth::ActionType::kCreateCollection})});
  registry.Add({.name = "drop",
                .flags = kChangesStoredData,
                .run = RunDrop,
                .auth = OnNamespace({auth::ActionType::kDropCollection})});
  registry.Add({.name = "dropDatabase",
                .flags = kChangesStoredData,
                .run = RunDropDatabase,
                .auth = OnDatabase({auth::ActionType::kDropDatabase})});
  registry.Add({.name = "renameCollection",
                .flags = kChangesStoredData | kAdminOnly,
                .run = RunRenameCollection,
                .auth = Custom(AuthorizeRenameCollection)});
  registry.Add({.name = "listCollections",
                .run = RunListCollections,
                .auth = OnDatabase({auth::ActionType::kListCollections})});
  registry.Add({.name = "listDatabases",
                .flags = kAdminOnly,
                .run = RunListDatabases,
                .auth = Custom(AuthorizeListDatabases)});
}

}  // namespace quarry::commands
