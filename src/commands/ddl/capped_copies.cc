// convertToCapped and cloneCollectionAsCapped: a capped copy of a collection, its documents read
// in natural order and inserted through the capped collection's own eviction, so the copy
// keeps the newest that fit.
#include <random>
#include <string>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "commands/auth/authorizer.h"
#include "commands/command_context.h"
#include "commands/ddl/capped_options.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "cursors/cursor_manager.h"
#include "exec/plan_executor.h"
#include "exec/planner.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kDocumentsPerCommit = 1000;

// The `size` both commands require: a positive number of bytes.
StatusWith<std::int64_t> RequiredSize(const Request& request) {
  bson::ValueView size = request.body.Get("size");
  if (!size.IsNumber() || size.AsDouble() < 1) {
    return Status(ErrorCode::kInvalidOptions, "invalid command spec");
  }
  return ParseCappedSize(request.name, "size", size);
}

StatusWith<exec::Collection> SourceCollection(CommandContext& ctx, const std::string& db,
                                              const std::string& coll) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> source, LookupCollection(ctx, db, coll));
  if (!source.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "source collection " + db + "." + coll + " does not exist");
  }
  if (source->info->options.view().Has("clusteredIndex")) {
    return Status(ErrorCode::kNotImplemented,
                  "capped clustered collections are not supported by Quarry");
  }
  return std::move(*source);
}

Status Commit(CommandContext& ctx, storage::WriteUnit unit) {
  if (unit.empty()) return Status::OK();
  QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                          CommitForRequest(ctx, std::move(unit), CommitOptionsFor(ctx, true)));
  return result.errors.empty() ? Status::OK() : result.errors.front().status;
}

// Creates `db.target` capped at `size` bytes, with the source's other options (and `temp: true`
// when `temp`, which create records as given), and copies the source's documents into it.
Status CopyAsCapped(CommandContext& ctx, const exec::Collection& source, const std::string& target,
                    std::int64_t size, bool temp = false) {
  bson::DocumentBuilder options;
  AppendCappedOptions(CappedOptions{.size = size, .max = std::nullopt}, &options);
  for (const bson::Element& e : source.info->options.view()) {
    if (e.key != "capped" && e.key != "size" && e.key != "max") options.Append(e.key, e.value);
  }
  if (temp && !source.info->options.view().Has("temp")) options.AppendBool("temp", true);
  QUARRY_ASSIGN_OR_RETURN(std::shared_ptr<const catalog::CollectionInfo> created,
                          ctx.catalog().CreateCollection(
                              source.db, target, std::move(options).Finish(), DdlOptionsFor(ctx)));
  const exec::Collection copy = exec::CollectionOf(std::move(created));
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<exec::PlanStage> plan,
                          exec::PlanQuery(ExecContextOf(ctx), source, exec::QuerySpec()));
  storage::WriteUnit unit;
  Status committed = Status::OK();
  QUARRY_RETURN_IF_ERROR(
      exec::ForEachResult(*plan, [&](bson::DocumentView doc, const query::MatchDetails&) {
        unit.Insert(copy.ref(), doc);
        if (unit.size() < kDocumentsPerCommit) return true;
        committed = Commit(ctx, std::exchange(unit, storage::WriteUnit()));
        return committed.ok();
      }));
  QUARRY_RETURN_IF_ERROR(committed);
  return Commit(ctx, std::move(unit));
}

StatusWith<bson::Document> RunCloneCollectionAsCapped(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string from, args.CollectionName());
  bson::ValueView to = request.body.Get("toCollection");
  if (to.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch, "'toCollection' must be of type String");
  }
  args.Ignore({"toCollection", "size", "temp"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(std::int64_t size, RequiredSize(request));
  QUARRY_ASSIGN_OR_RETURN(exec::Collection source, SourceCollection(ctx, request.db, from));
  const std::string target(to.String());
  if (ctx.catalog().Find(request.db, target) != nullptr) {
    return Status(ErrorCode::kNamespaceExists,
                  "cloneCollectionAsCapped failed - destination collection " + request.db + "." +
                      target + " already exists. source collection: " + source.ns);
  }
  Status status = CopyAsCapped(ctx, source, target, size, request.body.Get("temp").Truthy());
  if (!status.ok() && status.code() != ErrorCode::kNamespaceExists) {
    (void)ctx.catalog().DropCollection(request.db, target, DdlOptionsFor(ctx));
  }
  QUARRY_RETURN_IF_ERROR(status);
  return bson::Document();
}

// As mongod: a capped copy under a temporary name, renamed over the collection, which so gets a
// new UUID and keeps no index but _id's.
StatusWith<bson::Document> RunConvertToCapped(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  args.Ignore({"size"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(std::int64_t size, RequiredSize(request));
  QUARRY_ASSIGN_OR_RETURN(exec::Collection source, SourceCollection(ctx, request.db, coll));
  std::random_device random;
  const std::string temp =
      "tmp" + std::to_string(random()) + std::to_string(random()) + ".convertToCapped." + coll;
  Status status = CopyAsCapped(ctx, source, temp, size);
  if (status.ok()) {
    status = ctx.catalog().RenameCollection(request.db, temp, request.db, coll,
                                            /*drop_target=*/true, DdlOptionsFor(ctx));
  }
  if (!status.ok()) {
    (void)ctx.catalog().DropCollection(request.db, temp, DdlOptionsFor(ctx));
    return status;
  }
  ctx.cursors().KillNamespace(source.ns);
  return bson::Document();
}

}  // namespace

void RegisterCappedCopyCommands(CommandRegistry& registry) {
  registry.Add({.name = "cloneCollectionAsCapped",
                .flags = kChangesStoredData,
                .run = RunCloneCollectionAsCapped,
                .auth = Custom(AuthorizeCloneCollectionAsCapped)});
  registry.Add({.name = "convertToCapped",
                .flags = kChangesStoredData,
                .run = RunConvertToCapped,
                .auth = OnNamespace({auth::ActionType::kConvertToCapped})});
}

}  // namespace quarry::commands
