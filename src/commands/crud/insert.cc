// insert: validate and complete every document outside any lock (an _id first, generated when
// missing), then hand the whole batch to the commit pipeline in one WriteUnit.
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/validate.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/crud/document_validator.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kMaxUserDocumentSize = 16 * 1024 * 1024;
// Prepared bytes per commit of a large batch: a few of the pipeline's chunks.
constexpr std::size_t kSliceBytes = std::size_t{8} << 20;

// The document as it will be stored, _id first (generated when missing): `doc` itself when it
// already is, else a rebuilt copy kept in `*rebuilt`. Most drivers put _id first, so most
// documents go to storage without a copy of their own. `may_be_too_deep`: whether the message
// nests deeper than storage allows anywhere (else the nesting needs no walk of its own).
StatusWith<bson::DocumentView> PrepareForInsert(bson::DocumentView doc, bson::Document* rebuilt,
                                                bool may_be_too_deep) {
  if (doc.size() > kMaxUserDocumentSize) {
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "object to insert too large. size in bytes: " + std::to_string(doc.size()) +
                      ", max size: " + std::to_string(kMaxUserDocumentSize));
  }
  if (may_be_too_deep &&
      bson::NestingDepth(doc.data(), bson::kMaxStorageDepth) > bson::kMaxStorageDepth) {
    return Status(ErrorCode::kOverflow, "cannot insert document because it exceeds " +
                                            std::to_string(bson::kMaxStorageDepth) +
                                            " levels of nesting");
  }
  bson::ValueView id = doc.Get("_id");
  if (id.exists()) {
    switch (id.type()) {
      case bson::Type::kArray:
        return Status(ErrorCode::kBadValue, "can't use an array for _id");
      case bson::Type::kRegex:
        return Status(ErrorCode::kBadValue, "can't use a regex for _id");
      case bson::Type::kUndefined:
        return Status(ErrorCode::kBadValue, "can't use a undefined for _id");
      case bson::Type::kDocument:
        for (const bson::Element& e : id.Document()) {
          if (!e.key.empty() && e.key.front() == '$') {
            return Status(ErrorCode::kDollarPrefixedFieldName,
                          "_id fields may not contain '$'-prefixed fields: " + std::string(e.key) +
                              " is not valid for storage.");
          }
        }
        break;
      default:
        break;
    }
    if (doc.FirstKey() == "_id") return doc;
  }
  bson::DocumentBuilder b;
  if (id.exists()) {
    b.Append("_id", id);
  } else {
    b.AppendObjectId("_id", bson::ObjectId::Generate());
  }
  for (const bson::Element& e : doc) {
    if (e.key != "_id") b.Append(e.key, e.value);
  }
  *rebuilt = std::move(b).Finish();
  return rebuilt->view();
}

StatusWith<bson::Document> RunInsert(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckUserWrite(ctx.service(), request.db, coll));
  args.Raw("documents");
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::DocumentView> documents,
                          request.Documents("documents"));
  QUARRY_ASSIGN_OR_RETURN(bool ordered, args.OptionalBool("ordered", true));
  QUARRY_ASSIGN_OR_RETURN(bool bypass, args.OptionalBool("bypassDocumentValidation", false));
  args.Ignore({"let"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckBatchSize(documents.size()));
  QUARRY_ASSIGN_OR_RETURN(exec::Collection collection, EnsureCollection(ctx, request.db, coll));
  QUARRY_ASSIGN_OR_RETURN(std::optional<DocumentValidator> validator,
                          DocumentValidator::ForCollection(collection.info->options, bypass));

  // The batch is prepared and committed a slice at a time, so that a 48 MB message holds a few
  // MB of prepared oplog entries at once rather than a second copy of itself. Only the last
  // slice asks for the journal: its sync covers the slices before it.
  const storage::CommitOptions options = CommitOptionsFor(ctx, ordered);
  storage::CommitOptions unsynced = options;
  unsynced.durability = storage::Durability::kNone;
  RetryableWrite* retry = ctx.retryable_write();
  WriteOutcome& outcome = ctx.write_outcome();
  outcome.present = true;
  outcome.statements = static_cast<std::int64_t>(documents.size());
  const bson::Document inserted_outcome;  // what a retryable write records for an insert: {}
  bool stopped = false;
  bool synced = false;
  bool wrote = false;
  bson::Document rebuilt;
  const bool may_be_too_deep = request.deepest_nesting > bson::kMaxStorageDepth;
  std::size_t next = 0;
  while (next < documents.size() && !stopped) {
    storage::WriteUnit unit;
    std::vector<std::size_t> request_index;  // mutation index -> statement index
    for (; next < documents.size() && unit.bytes() < kSliceBytes; ++next) {
      if (retry != nullptr && retry->Executed(next).has_value()) {
        ++outcome.n;  // inserted by an earlier attempt of this retryable write
        continue;
      }
      StatusWith<bson::DocumentView> prepared =
          PrepareForInsert(documents[next], &rebuilt, may_be_too_deep);
      if (prepared.ok() && validator.has_value()) {
        Status valid = validator->Check(prepared.value());
        if (!valid.ok()) prepared = valid;
      }
      if (!prepared.ok()) {
        outcome.errors.push_back({next, prepared.status()});
        if (ordered) {  // the documents before it are still inserted
          stopped = true;
          break;
        }
        continue;
      }
      const std::size_t mutation = unit.Insert(collection.ref(), prepared.value());
      if (retry != nullptr) retry->Record(&unit, mutation, next, inserted_outcome);
      request_index.push_back(next);
    }
    if (unit.empty()) continue;
    const bool last = stopped || next == documents.size();
    QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                            CommitForRequest(ctx, std::move(unit), last ? options : unsynced));
    synced = last;
    wrote = wrote || result.applied > 0;
    outcome.n += static_cast<std::int64_t>(result.applied);
    for (const storage::MutationError& error : result.errors) {
      outcome.errors.push_back({request_index[error.index], error.status});
    }
    QUARRY_RETURN_IF_ERROR(result.sync_status);
    if (ordered && !result.errors.empty()) {
      // An ordered batch stops at its first failure: a validation error found later than the
      // commit's failure was never reached.
      const std::size_t first = request_index[result.errors.front().index];
      std::erase_if(outcome.errors, [first](const WriteError& e) { return e.index > first; });
      stopped = true;
    }
  }
  if (!synced && wrote && options.durability == storage::Durability::kJournal) {
    QUARRY_RETURN_IF_ERROR(ctx.engine().SyncWal());
  }
  outcome.SortErrors();
  bson::DocumentBuilder b;
  outcome.AppendTo(&b);
  return std::move(b).Finish();
}

}  // namespace

void RegisterInsertCommand(CommandRegistry& registry) {
  registry.Add({.name = "insert",
                .flags = kWritesData | kRetryableWrite | kAllowedInTransaction,
                .run = RunInsert,
                .counter = OpCounter::kInsert,
                .auth = OnNamespace({auth::ActionType::kInsert})});
}

}  // namespace quarry::commands
