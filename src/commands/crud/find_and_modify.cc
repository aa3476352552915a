// findAndModify: update or remove one document (the first in `sort` order) and return it, as it
// was or as it became.
#include <algorithm>
#include <string>

#include "bson/builder.h"
#include "collation/collator.h"
#include "commands/auth/authorizer.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/crud/crud.h"
#include "commands/crud/update_executor.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "exec/planner.h"
#include "exec/write_matches.h"
#include "query/projection/projection.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

// What findAndModify did, before its projection shapes `value`: {lastErrorObject: {n,
// updatedExisting?, upserted?}, value: <the document> | null}. A retryable findAndModify
// records it, and a retry's reply is built from the record.
bson::Document Outcome(bool removing, const std::optional<bson::Document>& value,
                       const UpdateOutcome* update) {
  bson::DocumentBuilder b;
  b.OpenDocument("lastErrorObject");
  if (removing) {
    b.AppendInt32("n", value.has_value() ? 1 : 0);
  } else {
    const bool upserted = update->upserted_id.has_value();
    b.AppendInt32("n", update->matched > 0 || upserted ? 1 : 0);
    b.AppendBool("updatedExisting", update->matched > 0);
    if (upserted) b.Append("upserted", update->upserted_id->Get("_id"));
  }
  b.Close();
  if (value.has_value()) {
    b.AppendDocument("value", *value);
  } else {
    b.AppendNull("value");
  }
  return std::move(b).Finish();
}

// The document findAndModify returns for an update: the new version with `new: true`, else
// the old one (none after an upsert).
std::optional<bson::Document> ReturnedDocument(const UpdateOutcome& outcome, bool return_new) {
  if (return_new) return outcome.post_image;
  if (outcome.upserted_id.has_value()) return std::nullopt;
  return outcome.pre_image;
}

// The fields of findAndModify's `fields` that ask for the document's text score.
bool IsTextScoreField(const bson::Element& e) {
  return e.value.type() == bson::Type::kDocument && e.value.Document().CountElements() == 1 &&
         e.value.Document().Get("$meta").type() == bson::Type::kString &&
         e.value.Document().Get("$meta").String() == "textScore";
}

// `fields` split into the text score's fields and the projection of the rest, which
// query::Projection applies; the scores come from the $text search (40218 without one).
struct FieldsSpec {
  std::optional<query::Projection> projection;
  std::vector<std::string> score_fields;
};

StatusWith<FieldsSpec> ParseFields(bson::DocumentView fields, const query::Matcher& matcher,
                                   const query::SortSpec& sort) {
  FieldsSpec spec;
  bson::DocumentBuilder rest;
  bool has_rest = false;
  for (const bson::Element& e : fields) {
    if (!IsTextScoreField(e)) {
      rest.Append(e.key, e.value);
      has_rest = true;
    } else if (e.key.find('.') != std::string_view::npos) {
      return Status(ErrorCode::kBadValue,
                    "findAndModify's fields cannot put {$meta: \"textScore\"} in a dotted field "
                    "in Quarry yet: " +
                        std::string(e.key));
    } else {
      spec.score_fields.emplace_back(e.key);
    }
  }
  if ((!spec.score_fields.empty() || sort.sorts_by_text_score()) &&
      matcher.text_search() == nullptr) {
    return Status(static_cast<ErrorCode>(40218),
                  "query requires text score metadata, but it is not available");
  }
  if (has_rest) {
    const bson::Document rest_fields = std::move(rest).Finish();
    QUARRY_ASSIGN_OR_RETURN(query::Projection parsed,
                            query::Projection::Parse(rest_fields.view(), &matcher));
    spec.projection = std::move(parsed);
  }
  return spec;
}

// `doc` with each score field set to `score` (replacing a field of that name), as find's
// projection adds it; without a score (an upserted document), as it is.
bson::Document WithScore(bson::DocumentView doc, const std::vector<std::string>& fields,
                         std::optional<double> score) {
  if (fields.empty() || !score.has_value()) return bson::Document::Copy(doc);
  bson::DocumentBuilder b;
  for (const bson::Element& e : doc) {
    if (std::ranges::find(fields, e.key) == fields.end()) b.Append(e.key, e.value);
  }
  for (const std::string& field : fields) b.AppendDouble(field, *score);
  return std::move(b).Finish();
}

// Removes the first document `sort` orders first among the matches; returns it (with its text
// score), or nullopt.
StatusWith<std::optional<exec::FirstMatch>> RemoveOne(CommandContext& ctx, const std::string& db,
                                                      const std::string& coll,
                                                      const query::Matcher& matcher,
                                                      const query::SortSpec& sort,
                                                      bson::ValueView hint) {
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, db, coll));
  if (!collection.has_value()) return std::optional<exec::FirstMatch>();
  QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint resolved, exec::ResolveHint(*collection, hint));
  auto remove = [&ctx, &collection](bson::DocumentView doc, const query::MatchDetails&,
                                    storage::WriteUnit* unit) -> StatusWith<bool> {
    const std::size_t mutation = unit->Delete(collection->ref(), doc);
    if (RetryableWrite* retry = ctx.retryable_write()) {
      retry->Record(unit, mutation, 0, Outcome(true, bson::Document::Copy(doc), nullptr));
    }
    return true;
  };
  return exec::ChangeFirstMatch(ExecContextOf(ctx), *collection, matcher, &sort, CommitterOf(ctx),
                                remove, resolved);
}

// The reply: the outcome with its value shaped by the projection, and what getLastError
// reports of it.
StatusWith<bson::Document> Reply(CommandContext& ctx, bson::DocumentView outcome,
                                 const FieldsSpec& fields, const query::Matcher& matcher,
                                 std::optional<double> text_score) {
  bson::DocumentView last_error = outcome.Get("lastErrorObject").Document();
  WriteOutcome& write = ctx.write_outcome();
  write.present = true;
  write.statements = 1;
  write.n = last_error.Get("n").AsInt64();
  write.updated_existing = last_error.Get("updatedExisting").Truthy();
  if (last_error.Has("upserted")) {
    write.upserted.push_back({0, exec::IdDocument(last_error.Get("upserted"))});
  }
  bson::DocumentBuilder b;
  b.AppendDocument("lastErrorObject", last_error);
  bson::ValueView value = outcome.Get("value");
  if (value.type() == bson::Type::kDocument && fields.projection.has_value()) {
    query::MatchDetails details;
    matcher.Matches(value.Document(), &details);
    QUARRY_ASSIGN_OR_RETURN(bson::Document shaped,
                            fields.projection->Apply(value.Document(), &details));
    b.AppendDocument("value", WithScore(shaped.view(), fields.score_fields, text_score));
  } else if (value.type() == bson::Type::kDocument) {
    b.AppendDocument("value", WithScore(value.Document(), fields.score_fields, text_score));
  } else {
    b.Append("value", value);
  }
  return std::move(b).Finish();
}

StatusWith<bson::Document> RunFindAndModify(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckUserWrite(ctx.service(), request.db, coll));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView filter, args.OptionalDocument("query"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView sort_spec, args.OptionalDocument("sort"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView fields, args.OptionalDocument("fields"));
  QUARRY_ASSIGN_OR_RETURN(bool remove, args.OptionalBool("remove", false));
  QUARRY_ASSIGN_OR_RETURN(bool return_new, args.OptionalBool("new", false));
  QUARRY_ASSIGN_OR_RETURN(bool upsert, args.OptionalBool("upsert", false));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView let, args.OptionalDocument("let"));
  bson::ValueView update = args.Raw("update");
  bson::ValueView array_filters = args.Raw("arrayFilters");
  QUARRY_ASSIGN_OR_RETURN(bool bypass, args.OptionalBool("bypassDocumentValidation", false));
  bson::ValueView hint = args.Raw("hint");
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                          CommandCollator(ctx, request.db, coll, args.Raw("collation"), ""));
  QUARRY_RETURN_IF_ERROR(args.Finish());

  bool has_update = update.exists() && update.type() != bson::Type::kNull;
  if (remove && has_update) {
    return Status(ErrorCode::kFailedToParse, "Cannot specify both an update and remove=true");
  }
  if (!remove && !has_update) {
    return Status(ErrorCode::kFailedToParse, "Either an update or remove=true must be specified");
  }
  if (remove && return_new) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot specify both new=true and remove=true; 'remove' always returns the "
                  "deleted document");
  }
  if (remove && upsert) {
    return Status(ErrorCode::kFailedToParse, "Cannot specify both upsert=true and remove=true ");
  }
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter, let, collator));
  QUARRY_ASSIGN_OR_RETURN(query::SortSpec sort, query::SortSpec::Parse(sort_spec, collator));
  QUARRY_ASSIGN_OR_RETURN(const FieldsSpec projection, ParseFields(fields, matcher, sort));

  if (RetryableWrite* retry = ctx.retryable_write()) {
    if (std::optional<bson::Document> done = retry->Executed(0)) {
      return Reply(ctx, *done, projection, matcher, std::nullopt);  // an earlier attempt did it
    }
  }
  if (remove) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<exec::FirstMatch> removed,
                            RemoveOne(ctx, request.db, coll, matcher, sort, hint));
    if (!removed.has_value()) {
      return Reply(ctx, Outcome(true, std::nullopt, nullptr), projection, matcher, std::nullopt);
    }
    return Reply(ctx, Outcome(true, std::move(removed->doc), nullptr), projection, matcher,
                 removed->text_score);
  }
  query::UpdateOptions options;
  options.collator = collator;
  options.is_upsert = upsert;
  options.let = let;
  if (array_filters.type() == bson::Type::kArray) {
    for (const bson::Element& e : array_filters.Document()) {
      if (e.value.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kTypeMismatch, "arrayFilters entries must be objects");
      }
      options.array_filters.push_back(e.value.Document());
    }
  }
  QUARRY_ASSIGN_OR_RETURN(query::UpdateSpec spec, query::UpdateSpec::Parse(update, options));
  UpdateStatement statement{.index = 0,
                            .matcher = matcher,
                            .update = std::move(spec),
                            .multi = false,
                            .upsert = upsert,
                            .sort = sort,
                            .bypass_validation = bypass,
                            .hint = hint,
                            .recorded_outcome = [return_new](const UpdateOutcome& outcome) {
                              return Outcome(false, ReturnedDocument(outcome, return_new),
                                             &outcome);
                            }};
  QUARRY_ASSIGN_OR_RETURN(UpdateOutcome outcome, ExecuteUpdate(ctx, request.db, coll, statement));
  return Reply(ctx, Outcome(false, ReturnedDocument(outcome, return_new), &outcome), projection,
               matcher, outcome.text_score);
}

}  // namespace

void RegisterFindAndModifyCommand(CommandRegistry& registry) {
  registry.Add({.name = "findAndModify",
                .flags = kWritesData | kRetryableWrite | kAllowedInTransaction,
                .run = RunFindAndModify,
                .aliases = {"findandmodify"},
                .latency = LatencyClass::kWrite,
                .auth = Custom(AuthorizeFindAndModify)});
}

}  // namespace quarry::commands
