// insert: validate and complete every document outside any lock (an _id first, generated when
// missing), then hand the whole batch to the commit pipeline in one WriteUnit.
#include <string>
#include <vector>

#include "bson/builder.h"
#include "commands/collection_access.h"
#include "commands/command_context.h"
#include "catalog/collection_info.h"
#include "commands/crud/document_validator.h"
#include "commands/crud/matching.h"
#include "commands/crud/write_errors.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

constexpr std::size_t kMaxUserDocumentSize = 16 * 1024 * 1024;

// The document as it will be stored: _id first (generated when missing).
StatusWith<bson::Document> PrepareForInsert(bson::DocumentView doc) {
  if (doc.size() > kMaxUserDocumentSize) {
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "object to insert too large. size in bytes: " + std::to_string(doc.size()) +
                      ", max size: " + std::to_string(kMaxUserDocumentSize));
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
    if (doc.FirstKey() == "_id") return bson::Document::Copy(doc);
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
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunInsert(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  args.Raw("documents");
  QUARRY_ASSIGN_OR_RETURN(std::vector<bson::DocumentView> documents, request.Documents("documents"));
  QUARRY_ASSIGN_OR_RETURN(bool ordered, args.OptionalBool("ordered", true));
  QUARRY_ASSIGN_OR_RETURN(bool bypass, args.OptionalBool("bypassDocumentValidation", false));
  args.Ignore({"let"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_RETURN_IF_ERROR(CheckBatchSize(documents.size()));
  QUARRY_ASSIGN_OR_RETURN(CollectionHandle collection, EnsureCollection(ctx, request.db, coll));
  QUARRY_ASSIGN_OR_RETURN(std::optional<DocumentValidator> validator,
                          DocumentValidator::ForCollection(collection.info->options, bypass));

  std::vector<WriteError> errors;
  std::vector<std::size_t> request_index;  // mutation index -> statement index
  request_index.reserve(documents.size());
  storage::WriteUnit unit;
  unit.Reserve(documents.size());
  for (std::size_t i = 0; i < documents.size(); ++i) {
    StatusWith<bson::Document> prepared = PrepareForInsert(documents[i]);
    if (prepared.ok() && validator.has_value()) {
      Status valid = validator->Check(prepared.value());
      if (!valid.ok()) prepared = valid;
    }
    if (!prepared.ok()) {
      errors.push_back({i, prepared.status()});
      if (ordered) break;  // the documents before it are still inserted
      continue;
    }
    bson::Document oplog_entry = InsertOplogEntry(collection, prepared.value());
    unit.Insert(collection.id, std::move(prepared).value(), oplog_entry);
    request_index.push_back(i);
  }

  std::int64_t inserted = 0;
  if (!unit.empty()) {
    QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                            ctx.engine().pipeline().Commit(std::move(unit),
                                                           CommitOptionsFor(ctx, ordered)));
    inserted = static_cast<std::int64_t>(result.applied);
    for (const storage::MutationError& error : result.errors) {
      errors.push_back({request_index[error.index], error.status});
    }
    if (ordered && !result.errors.empty()) {
      // An ordered batch stops at its first failure: a validation error found later than the
      // commit's failure was never reached.
      std::size_t first = request_index[result.errors.front().index];
      std::erase_if(errors, [first](const WriteError& e) { return e.index > first; });
    }
    QUARRY_RETURN_IF_ERROR(result.sync_status);
  }

  bson::DocumentBuilder b;
  b.AppendInt32("n", static_cast<std::int32_t>(inserted));
  AppendWriteErrors(&b, std::move(errors));
  return std::move(b).Finish();
}

}  // namespace

void RegisterInsertCommand(CommandRegistry& registry) {
  registry.Add({.name = "insert", .flags = kWritesData, .run = RunInsert});
}

}  // namespace quarry::commands
