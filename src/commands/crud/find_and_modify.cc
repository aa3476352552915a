// findAndModify: update or remove one document (the first in `sort` order) and return it, as it
// was or as it became.
#include <string>

#include "bson/builder.h"
#include "commands/command_context.h"
#include "commands/crud/crud.h"
#include "commands/crud/update_executor.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "exec/write_matches.h"
#include "query/projection/projection.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

// Removes the first document `sort` orders first among the matches; returns it, or nullopt.
StatusWith<std::optional<bson::Document>> RemoveOne(CommandContext& ctx, const std::string& db,
                                                    const std::string& coll,
                                                    const query::Matcher& matcher,
                                                    const query::SortSpec& sort) {
  std::optional<exec::Collection> collection = LookupCollection(ctx, db, coll);
  if (!collection.has_value()) return std::optional<bson::Document>();
  auto remove = [&collection](bson::DocumentView doc, const query::MatchDetails&,
                              storage::WriteUnit* unit) -> StatusWith<bool> {
    unit->Delete(collection->ref(), doc);
    return true;
  };
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::FirstMatch> removed,
                          exec::ChangeFirstMatch(ExecContextOf(ctx), *collection, matcher, &sort,
                                                 CommitterOf(ctx), remove));
  if (!removed.has_value()) return std::optional<bson::Document>();
  return std::optional<bson::Document>(std::move(removed->doc));
}

StatusWith<bson::Document> RunFindAndModify(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
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
  args.Ignore({"hint", "collation"});
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
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, query::Matcher::Parse(filter, let));
  QUARRY_ASSIGN_OR_RETURN(query::SortSpec sort, query::SortSpec::Parse(sort_spec));
  std::optional<query::Projection> projection;
  if (!fields.empty()) {
    QUARRY_ASSIGN_OR_RETURN(query::Projection parsed, query::Projection::Parse(fields, &matcher));
    projection = std::move(parsed);
  }

  bson::DocumentBuilder last_error;
  std::optional<bson::Document> value;
  if (remove) {
    QUARRY_ASSIGN_OR_RETURN(value, RemoveOne(ctx, request.db, coll, matcher, sort));
    last_error.AppendInt32("n", value.has_value() ? 1 : 0);
  } else {
    query::UpdateOptions options;
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
    UpdateStatement statement{.matcher = matcher,
                              .update = std::move(spec),
                              .multi = false,
                              .upsert = upsert,
                              .sort = sort,
                              .bypass_validation = bypass};
    QUARRY_ASSIGN_OR_RETURN(UpdateOutcome outcome, ExecuteUpdate(ctx, request.db, coll, statement));
    bool upserted = outcome.upserted_id.has_value();
    last_error.AppendInt32("n", outcome.matched > 0 || upserted ? 1 : 0);
    last_error.AppendBool("updatedExisting", outcome.matched > 0);
    if (upserted) last_error.Append("upserted", outcome.upserted_id->Get("_id"));
    value = return_new ? outcome.post_image : outcome.pre_image;
    if (upserted && !return_new) value.reset();
  }

  bson::DocumentBuilder b;
  b.AppendDocument("lastErrorObject", std::move(last_error).Finish());
  if (value.has_value()) {
    if (projection.has_value()) {
      query::MatchDetails details;
      matcher.Matches(*value, &details);
      QUARRY_ASSIGN_OR_RETURN(bson::Document shaped, projection->Apply(*value, &details));
      b.AppendDocument("value", shaped);
    } else {
      b.AppendDocument("value", *value);
    }
  } else {
    b.AppendNull("value");
  }
  return std::move(b).Finish();
}

}  // namespace

void RegisterFindAndModifyCommand(CommandRegistry& registry) {
  registry.Add({.name = "findAndModify",
                .flags = kWritesData,
                .run = RunFindAndModify,
                .aliases = {"findandmodify"}});
}

}  // namespace quarry::commands
