// validate: walks a collection's records and indexes and reports, in mongod's shape, whether
// every index holds exactly the entries its records make; with `full: true` it also walks the
// oplog (exec/oplog_check.h).
#include <optional>
#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "exec/index_check.h"
#include "exec/oplog_check.h"

namespace quarry::commands {
namespace {

// As mongod's maxValidateMemoryUsageMB default.
constexpr std::size_t kMaxMemoryBytes = std::size_t{200} << 20;

void AppendProblems(std::string_view field, const std::vector<exec::IndexEntryProblem>& problems,
                    bson::DocumentBuilder* b) {
  b->OpenArray(field);
  for (std::size_t i = 0; i < problems.size(); ++i) {
    b->OpenDocument(std::to_string(i)).AppendString("indexName", problems[i].index);
    for (const bson::Element& e : problems[i].key.view()) b->Append(e.key, e.value);
    b->Close();
  }
  b->Close();
}

// The oplog check's warnings, as an array.
void AppendOplogWarnings(const exec::OplogCheck* oplog, bson::DocumentBuilder* b) {
  b->OpenArray("warnings");
  if (oplog != nullptr) {
    for (std::size_t i = 0; i < oplog->warnings.size(); ++i) {
      b->AppendString(std::to_string(i), oplog->warnings[i]);
    }
  }
  b->Close();
}

// The oplog check's errors, into the open errors array from position `*n` on.
void AppendOplogErrors(const exec::OplogCheck* oplog, std::size_t* n, bson::DocumentBuilder* b) {
  if (oplog == nullptr) return;
  for (const std::string& error : oplog->errors) b->AppendString(std::to_string((*n)++), error);
  if (oplog->inconsistencies > static_cast<std::int64_t>(oplog->errors.size())) {
    b->AppendString(std::to_string((*n)++),
                    "the oplog check found " + std::to_string(oplog->inconsistencies) +
                        " inconsistencies in all; the first " +
                        std::to_string(oplog->errors.size()) + " are listed");
  }
}

// validate of local.oplog.rs: its entries, in the reply shape of a collection without indexes.
bson::Document OplogValidateReply(std::string_view ns, const exec::OplogCheck& check) {
  bson::DocumentBuilder b;
  b.AppendString("ns", ns);
  b.AppendInt64("nInvalidDocuments", 0);
  b.AppendInt64("nNonCompliantDocuments", 0);
  b.AppendInt64("nrecords", check.entries);
  b.AppendInt32("nIndexes", 0);
  b.OpenDocument("keysPerIndex").Close();
  b.OpenDocument("indexDetails").Close();
  b.AppendBool("valid", check.inconsistencies == 0);
  b.AppendBool("repaired", false);
  AppendOplogWarnings(&check, &b);
  b.OpenArray("errors");
  std::size_t n = 0;
  AppendOplogErrors(&check, &n, &b);
  b.Close();
  b.OpenArray("extraIndexEntries").Close();
  b.OpenArray("missingIndexEntries").Close();
  b.OpenArray("corruptRecords").Close();
  return std::move(b).Finish();
}

bson::Document ValidateReply(const exec::Collection& collection, const exec::CollectionCheck& check,
                             const std::optional<exec::OplogCheck>& oplog) {
  bool valid = !oplog.has_value() || oplog->inconsistencies == 0;
  bson::DocumentBuilder b;
  b.AppendString("ns", collection.ns);
  b.AppendInt64("nInvalidDocuments", 0);
  b.AppendInt64("nNonCompliantDocuments", 0);
  b.AppendInt64("nrecords", check.records);
  b.AppendInt32("nIndexes", static_cast<std::int32_t>(check.indexes.size() + 1));
  b.OpenDocument("keysPerIndex").AppendInt64("_id_", check.records);
  for (const exec::IndexCheckResult& index : check.indexes) b.AppendInt64(index.name, index.keys);
  b.Close();
  b.OpenDocument("indexDetails");
  b.OpenDocument("_id_").AppendBool("valid", true).Close();
  for (const exec::IndexCheckResult& index : check.indexes) {
    const bool index_valid = index.missing == 0 && index.extra == 0;
    valid = valid && index_valid;
    b.OpenDocument(index.name).AppendBool("valid", index_valid).Close();
  }
  b.Close();
  b.AppendBool("valid", valid);
  b.AppendBool("repaired", false);
  const exec::OplogCheck* oplog_check = oplog.has_value() ? &*oplog : nullptr;
  AppendOplogWarnings(oplog_check, &b);
  b.OpenArray("errors");
  std::size_t n = 0;
  AppendOplogErrors(oplog_check, &n, &b);
  for (const exec::IndexCheckResult& index : check.indexes) {
    if (index.missing > 0) {
      b.AppendString(std::to_string(n++), "Index '" + index.name + "' is missing " +
                                              std::to_string(index.missing) + " entries");
    }
    if (index.extra > 0) {
      b.AppendString(std::to_string(n++), "Index '" + index.name + "' has " +
                                              std::to_string(index.extra) +
                                              " entries that no document makes");
    }
  }
  b.Close();
  AppendProblems("extraIndexEntries", check.extra_examples, &b);
  AppendProblems("missingIndexEntries", check.missing_examples, &b);
  b.OpenArray("corruptRecords").Close();
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunValidate(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_ASSIGN_OR_RETURN(bool repair, args.OptionalBool("repair", false));
  QUARRY_ASSIGN_OR_RETURN(bool fix_multikey, args.OptionalBool("fixMultikey", false));
  // Records and indexes are always checked in full, in the foreground; `full` adds the oplog.
  QUARRY_ASSIGN_OR_RETURN(bool full, args.OptionalBool("full", false));
  args.Ignore({"background", "checkBSONConformance", "metadata"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (repair || fix_multikey) {
    return Status(ErrorCode::kNotImplemented,
                  std::string(repair ? "repair" : "fixMultikey") +
                      " is not supported by validate in Quarry: it only reports");
  }
  // The oplog itself: its entries are what there is to check, so every validate walks them.
  if (IsOplogCollection(ctx.service(), request.db, coll)) {
    QUARRY_ASSIGN_OR_RETURN(exec::OplogCheck check, exec::CheckOplogEntries(ExecContextOf(ctx)));
    return OplogValidateReply(request.db + "." + coll, check);
  }
  std::optional<exec::Collection> collection = LookupCollection(ctx, request.db, coll);
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Collection '" + request.db + "." + coll + "' does not exist to validate.");
  }
  QUARRY_ASSIGN_OR_RETURN(exec::CollectionCheck check,
                          exec::CheckIndexes(ExecContextOf(ctx), *collection, kMaxMemoryBytes));
  std::optional<exec::OplogCheck> oplog;
  if (full) {
    QUARRY_ASSIGN_OR_RETURN(oplog,
                            exec::CheckOplog(ExecContextOf(ctx), *collection, kMaxMemoryBytes));
  }
  return ValidateReply(*collection, check, oplog);
}

}  // namespace

void RegisterValidateCommand(CommandRegistry& registry) {
  registry.Add(
      {.name = "validate", .run = RunValidate, .auth = OnNamespace({auth::ActionType::kValidate})});
}

}  // namespace quarry::commands
