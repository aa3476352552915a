// validate: walks a collection's records and indexes and reports, in mongod's shape, whether
// every index holds exactly the entries its records make; with `full: true` it also walks the
// oplog (exec/oplog_check.h), with `checkBSONConformance: true` it checks every record as BSON,
// and with `metadata: true` it checks only the stored index specs.
#include <optional>
#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/indexes/index_specs.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "exec/index_check.h"
#include "exec/oplog_check.h"

namespace quarry::commands {
namespace {

// As mongod's maxValidateMemoryUsageMB default.
constexpr std::size_t kMaxMemoryBytes = std::size_t{200} << 20;

struct ValidateOptions {
  bool full = false;
  bool background = false;
  bool metadata = false;
  bool check_bson = false;  // checkBSONConformance
  bool repair = false;
  bool fix_multikey = false;
};

Status BothNotSupported(std::string_view first, std::string_view second) {
  return Status(ErrorCode::kInvalidOptions, "Running the validate command with both { " +
                                                std::string(first) + ": true } and { " +
                                                std::string(second) + ": true } is not supported.");
}

// The combinations mongod refuses, in its order, before anything is read.
Status CheckCombination(const ValidateOptions& options) {
  if (options.background && options.full) return BothNotSupported("background", "full");
  if (options.background && options.repair) return BothNotSupported("background", "repair");
  if (options.check_bson && options.repair) {
    return BothNotSupported("checkBSONConformance", "repair");
  }
  if (options.metadata &&
      (options.background || options.full || options.check_bson || options.repair)) {
    return Status(ErrorCode::kInvalidOptions,
                  "Running the validate command with { metadata: true } is not supported with "
                  "any other options");
  }
  return Status::OK();
}

// Each stored index spec checked again as createIndexes checks a new one: one warning per spec
// that no longer passes (a spec stored by an older version under rules since tightened).
std::vector<std::string> IndexSpecWarnings(const exec::Collection& collection) {
  std::vector<std::string> warnings;
  for (const catalog::IndexInfo& index : collection.info->indexes) {
    StatusWith<bson::Document> normalized =
        NormalizeIndexSpec(index.spec.view(), /*ignore_unknown_options=*/false);
    if (!normalized.ok()) {
      warnings.push_back("The index specification for index '" + std::string(index.name()) +
                         "' contains invalid fields: " + std::string(normalized.status().reason()));
    }
  }
  return warnings;
}

void AppendStrings(std::string_view field, const std::vector<std::string>& strings,
                   bson::DocumentBuilder* b) {
  b->OpenArray(field);
  for (std::size_t i = 0; i < strings.size(); ++i) b->AppendString(std::to_string(i), strings[i]);
  b->Close();
}

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
  AppendStrings("warnings", check.warnings, &b);
  b.OpenArray("errors");
  std::size_t n = 0;
  AppendOplogErrors(&check, &n, &b);
  b.Close();
  b.OpenArray("extraIndexEntries").Close();
  b.OpenArray("missingIndexEntries").Close();
  b.OpenArray("corruptRecords").Close();
  return std::move(b).Finish();
}

// validate with `metadata: true`: the specs alone; no record or index entry was read, so the
// reply has no counts of them.
bson::Document MetadataValidateReply(std::string_view ns, std::size_t indexes,
                                     const std::vector<std::string>& warnings) {
  bson::DocumentBuilder b;
  b.AppendString("ns", ns);
  b.AppendInt32("nIndexes", static_cast<std::int32_t>(indexes));
  b.AppendBool("valid", true);
  b.AppendBool("repaired", false);
  AppendStrings("warnings", warnings, &b);
  b.OpenArray("errors").Close();
  b.OpenArray("extraIndexEntries").Close();
  b.OpenArray("missingIndexEntries").Close();
  b.OpenArray("corruptRecords").Close();
  return std::move(b).Finish();
}

// A capped collection's natural order that disagrees with its records.
void AppendNaturalOrderErrors(const std::optional<exec::NaturalOrderCheck>& natural, std::size_t* n,
                              bson::DocumentBuilder* b) {
  if (!natural.has_value()) return;
  auto error = [&](std::int64_t count, std::string_view what) {
    if (count > 0) {
      b->AppendString(std::to_string((*n)++), "The natural order of this capped collection " +
                                                  std::string(what) + ": " + std::to_string(count));
    }
  };
  error(natural->missing, "misses documents");
  error(natural->extra, "has positions of no document");
  error(natural->mismatched, "has positions its two indexes disagree on");
}

bson::Document ValidateReply(const exec::Collection& collection, const exec::CollectionCheck& check,
                             const std::optional<exec::OplogCheck>& oplog,
                             const std::optional<exec::RecordConformance>& conformance) {
  const std::int64_t invalid_documents = conformance.has_value() ? conformance->invalid : 0;
  bool valid = (!oplog.has_value() || oplog->inconsistencies == 0) && invalid_documents == 0;
  bson::DocumentBuilder b;
  b.AppendString("ns", collection.ns);
  b.AppendInt64("nInvalidDocuments", invalid_documents);
  b.AppendInt64("nNonCompliantDocuments", conformance.has_value() ? conformance->non_compliant : 0);
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
  const std::optional<exec::NaturalOrderCheck>& natural = check.natural_order;
  if (natural.has_value()) {
    valid = valid && natural->missing == 0 && natural->extra == 0 && natural->mismatched == 0;
  }
  b.AppendBool("valid", valid);
  b.AppendBool("repaired", false);
  const exec::OplogCheck* oplog_check = oplog.has_value() ? &*oplog : nullptr;
  std::vector<std::string> warnings = IndexSpecWarnings(collection);
  if (oplog_check != nullptr) {
    warnings.insert(warnings.begin(), oplog_check->warnings.begin(), oplog_check->warnings.end());
  }
  if (conformance.has_value() && conformance->non_compliant > 0) {
    warnings.push_back(std::to_string(conformance->non_compliant) +
                       " documents in this collection are well-formed BSON but not conformant to "
                       "the BSON specification: a key or a string is not valid UTF-8");
  }
  AppendStrings("warnings", warnings, &b);
  b.OpenArray("errors");
  std::size_t n = 0;
  AppendOplogErrors(oplog_check, &n, &b);
  if (invalid_documents > 0) {
    b.AppendString(std::to_string(n++), std::to_string(invalid_documents) +
                                            " documents in this collection are not well-formed "
                                            "BSON");
  }
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
  AppendNaturalOrderErrors(natural, &n, &b);
  b.Close();
  AppendProblems("extraIndexEntries", check.extra_examples, &b);
  AppendProblems("missingIndexEntries", check.missing_examples, &b);
  b.OpenArray("corruptRecords").Close();
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunValidate(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  ValidateOptions options;
  QUARRY_ASSIGN_OR_RETURN(options.repair, args.OptionalBool("repair", false));
  QUARRY_ASSIGN_OR_RETURN(options.fix_multikey, args.OptionalBool("fixMultikey", false));
  // Records and indexes are always checked in full; `full` adds the oplog.
  QUARRY_ASSIGN_OR_RETURN(options.full, args.OptionalBool("full", false));
  // Every check reads one consistent state of the collection while its writes wait: a
  // background validation checks the same, and is as short as a foreground one.
  QUARRY_ASSIGN_OR_RETURN(options.background, args.OptionalBool("background", false));
  QUARRY_ASSIGN_OR_RETURN(options.metadata, args.OptionalBool("metadata", false));
  QUARRY_ASSIGN_OR_RETURN(options.check_bson, args.OptionalBool("checkBSONConformance", false));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckCombination(options));
  if (options.repair || options.fix_multikey) {
    return Status(ErrorCode::kNotImplemented,
                  std::string(options.repair ? "repair" : "fixMultikey") +
                      " is not supported by validate in Quarry: it only reports");
  }
  // The oplog itself: its entries are what there is to check, so every validate walks them.
  if (IsOplogCollection(ctx.service(), request.db, coll)) {
    // It has no indexes: its metadata holds nothing to check.
    if (options.metadata) return MetadataValidateReply(request.db + "." + coll, 0, {});
    if (options.check_bson) {
      return Status(ErrorCode::kNotImplemented,
                    "checkBSONConformance is not supported by validate in Quarry on the oplog, "
                    "whose entries the server writes itself");
    }
    QUARRY_ASSIGN_OR_RETURN(exec::OplogCheck check, exec::CheckOplogEntries(ExecContextOf(ctx)));
    return OplogValidateReply(request.db + "." + coll, check);
  }
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, coll));
  if (!collection.has_value()) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "Collection '" + request.db + "." + coll + "' does not exist to validate.");
  }
  if (options.metadata) {
    return MetadataValidateReply(collection->ns, collection->info->indexes.size(),
                                 IndexSpecWarnings(*collection));
  }
  QUARRY_ASSIGN_OR_RETURN(exec::CollectionCheck check,
                          exec::CheckIndexes(ExecContextOf(ctx), *collection, kMaxMemoryBytes));
  std::optional<exec::OplogCheck> oplog;
  if (options.full) {
    QUARRY_ASSIGN_OR_RETURN(oplog,
                            exec::CheckOplog(ExecContextOf(ctx), *collection, kMaxMemoryBytes));
  }
  std::optional<exec::RecordConformance> conformance;
  if (options.check_bson) {
    QUARRY_ASSIGN_OR_RETURN(conformance,
                            exec::CheckRecordConformance(ExecContextOf(ctx), *collection));
  }
  return ValidateReply(*collection, check, oplog, conformance);
}

}  // namespace

void RegisterValidateCommand(CommandRegistry& registry) {
  registry.Add(
      {.name = "validate", .run = RunValidate, .auth = OnNamespace({auth::ActionType::kValidate})});
}

}  // namespace quarry::commands
