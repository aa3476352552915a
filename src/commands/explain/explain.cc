// explain: the plan a find, count, distinct, aggregate, update, delete or findAndModify would
// run, and with executionStats what running its read did. Writes are never applied.
#include "exec/explain.h"

#include <chrono>
#include <string>

#include "bson/builder.h"
#include "collation/collator.h"
#include "commands/auth/authorizer.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/explain/explainers.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/service_state.h"
#include "commands/views/view_reads.h"
#include "commands/views/view_resolution.h"
#include "exec/distinct_plan.h"
#include "exec/explain_count.h"
#include "exec/planner.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"

namespace quarry::commands {
namespace {

// What explain needs of a command that reads through a filter: the filter, sort and hint.
struct FilterArgs {
  std::string coll;
  bson::DocumentView filter;
  bson::DocumentView sort;
  bson::ValueView hint;
  collation::CollatorPtr collator;
  // The command acts on the first match only (findAndModify, an update without multi, a delete
  // with limit 1), so its plan stops there: 1; else 0.
  std::int64_t stop_after = 0;
};

StatusWith<std::string> CollectionOf(const Request& request) {
  bson::ValueView coll = request.body.Get(request.name);
  if (coll.type() != bson::Type::kString || coll.String().empty()) {
    return Status(ErrorCode::kInvalidNamespace,
                  "collection name has invalid type " + std::string(bson::TypeAlias(coll.type())));
  }
  return std::string(coll.String());
}

StatusWith<bson::DocumentView> OptionalDocument(bson::DocumentView doc, std::string_view field) {
  bson::ValueView value = doc.Get(field);
  if (!value.exists() || value.type() == bson::Type::kNull) return bson::DocumentView();
  if (value.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(field) + "' is the wrong type '" +
                      std::string(bson::TypeAlias(value.type())) + "', expected type 'object'");
  }
  return value.Document();
}

// The filter arguments of count, distinct, findAndModify, and the first statement of an update
// or delete.
StatusWith<FilterArgs> FilterArgsOf(CommandContext& ctx, const Request& request) {
  FilterArgs args;
  QUARRY_ASSIGN_OR_RETURN(args.coll, CollectionOf(request));
  bson::DocumentView body = request.body;
  std::string_view filter_field = "query";
  if (request.name == "update" || request.name == "delete") {
    const std::string_view list = request.name == "update" ? "updates" : "deletes";
    QUARRY_ASSIGN_OR_RETURN(std::vector<bson::DocumentView> statements, request.Documents(list));
    if (statements.size() != 1) {
      return Status(ErrorCode::kInvalidLength,
                    "explain of " + std::string(request.name) + " takes exactly one statement");
    }
    body = statements.front();
    filter_field = "q";
  }
  if (request.name == "findAndModify" || request.name == "update") {
    QUARRY_ASSIGN_OR_RETURN(args.sort, OptionalDocument(body, "sort"));
  }
  const bool first_only = request.name == "findAndModify" ||
                          (request.name == "update" && !body.Get("multi").Truthy()) ||
                          (request.name == "delete" && body.Get("limit").Truthy());
  args.stop_after = first_only ? 1 : 0;
  QUARRY_ASSIGN_OR_RETURN(args.filter, OptionalDocument(body, filter_field));
  QUARRY_ASSIGN_OR_RETURN(args.collator,
                          CommandCollator(ctx, request.db, args.coll, body.Get("collation"), ""));
  args.hint = body.Get("hint");
  return args;
}

// The stage mongod puts above the read plan of each command.
std::string_view CommandStage(std::string_view command, bson::DocumentView body) {
  if (command == "count") return "COUNT";
  if (command == "distinct") return "DISTINCT";
  if (command == "delete") return "DELETE";
  if (command == "update") return "UPDATE";
  if (command == "findAndModify") return body.Get("remove").Truthy() ? "DELETE" : "UPDATE";
  return "";
}

Status ExplainFilterCommand(CommandContext& ctx, const Request& request,
                            exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out) {
  QUARRY_ASSIGN_OR_RETURN(FilterArgs args, FilterArgsOf(ctx, request));
  const std::string ns = request.db + "." + args.coll;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, request.db, args.coll));
  if (!collection.has_value()) return AppendExplainOfNothing(ns, args.filter, verbosity, out);
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher,
                          query::Matcher::Parse(args.filter, bson::DocumentView(), args.collator));
  QUARRY_ASSIGN_OR_RETURN(query::SortSpec sort, query::SortSpec::Parse(args.sort, args.collator));
  QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint hint, exec::ResolveHint(*collection, args.hint));
  exec::ExecContext exec_ctx = ExecContextOf(ctx);
  exec_ctx.for_explain = true;
  std::unique_ptr<exec::PlanStage> root;
  if (const bson::ValueView key = request.body.Get("key");
      request.name == "distinct" && key.type() == bson::Type::kString) {
    QUARRY_ASSIGN_OR_RETURN(
        root, exec::PlanDistinctScan(exec_ctx, *collection, matcher, key.String(), hint));
  }
  if (root == nullptr) {
    QUARRY_ASSIGN_OR_RETURN(exec::FilterPlan plan,
                            exec::PlanFilter(exec_ctx, *collection, matcher, hint, sort));
    root = std::move(plan.root);
  }
  return exec::AppendExplain(*root,
                             {.ns = ns,
                              .parsed_query = args.filter,
                              .command_stage = CommandStage(request.name, request.body),
                              .collation = SpecOf(args.collator),
                              .stop_after = args.stop_after},
                             verbosity, out);
}

void AppendServerInfo(CommandContext& ctx, bson::DocumentBuilder* b) {
  b->OpenDocument("serverInfo");
  b->AppendString("host", ctx.service().host_name);
  b->AppendInt32("port", ctx.service().config.port);
  b->AppendString("version", kMongoVersion);
  b->AppendString("gitVersion", "quarry");
  b->Close();
}

// A read of a view explains as the aggregate over its source that it runs as (mongod's
// rewrite; distinct reads that aggregate's $match and collects the values itself).
StatusWith<bson::Document> ExplainReadOfView(CommandContext& ctx, const Request& explained,
                                             const ResolvedView& view,
                                             exec::ExplainVerbosity verbosity) {
  bson::Document on_view;
  if (explained.name == "find") {
    QUARRY_ASSIGN_OR_RETURN(on_view, FindAsAggregate(explained.body, view.name));
  } else if (explained.name == "count") {
    on_view = CountAsAggregate(explained.body, view.name);
  } else if (explained.name == "distinct") {
    on_view = DistinctAsAggregate(explained.body, view.name);
  } else if (explained.name == "aggregate") {
    on_view = bson::Document::Copy(explained.body);
  } else {
    return Status(ErrorCode::kNotImplemented, "explain of " + std::string(explained.name) +
                                                  " on a view is not supported by Quarry yet");
  }
  const bson::ValueView stages = on_view.view().Get("pipeline");
  if (stages.type() == bson::Type::kArray) {
    QUARRY_RETURN_IF_ERROR(CheckPipelineReadsView(view, stages.Document()));
  }
  Request aggregate{
      .name = "aggregate", .db = explained.db, .body = on_view.view(), .sequences = {}};
  QUARRY_ASSIGN_OR_RETURN(const bson::Document over_source, AggregateOverSource(aggregate, view));
  Request rewritten{
      .name = "aggregate", .db = explained.db, .body = over_source.view(), .sequences = {}};
  return ExplainReply(ctx, rewritten, verbosity);
}

StatusWith<bson::Document> RunExplain(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  bson::ValueView inner = request.body.Get(request.name);
  QUARRY_ASSIGN_OR_RETURN(exec::ExplainVerbosity verbosity,
                          exec::ParseExplainVerbosity(args.Raw("verbosity")));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (inner.type() != bson::Type::kDocument || inner.Document().empty()) {
    return Status(ErrorCode::kFailedToParse,
                  "explain command requires a nested object, not " + inner.ToJson());
  }
  Request explained{.name = inner.Document().FirstKey(),
                    .db = request.db,
                    .body = inner.Document(),
                    .sequences = {}};
  return ExplainReply(ctx, explained, verbosity);
}

}  // namespace

StatusWith<bson::Document> ExplainReply(CommandContext& ctx, const Request& explained,
                                        exec::ExplainVerbosity verbosity) {
  bson::DocumentBuilder b;
  b.AppendString("explainVersion", "1");
  const std::string_view name = explained.name;
  if (const bson::ValueView target = explained.body.Get(name);
      target.type() == bson::Type::kString &&
      (name == "find" || name == "count" || name == "distinct" || name == "aggregate")) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<ResolvedView> view,
                            ResolveView(ctx.catalog(), explained.db, target.String()));
    if (view.has_value()) return ExplainReadOfView(ctx, explained, *view, verbosity);
    const bson::ValueView filter = explained.body.Get("filter");
    if (name == "find" && filter.type() == bson::Type::kDocument &&
        MayHoldText(filter.Document())) {
      // A find with $text explains as the aggregate it runs as.
      QUARRY_ASSIGN_OR_RETURN(const bson::Document aggregate,
                              FindAsAggregate(explained.body, target.String()));
      Request rewritten{
          .name = "aggregate", .db = explained.db, .body = aggregate.view(), .sequences = {}};
      return ExplainReply(ctx, rewritten, verbosity);
    }
  }
  if (name == "find") {
    QUARRY_RETURN_IF_ERROR(ExplainFind(ctx, explained, verbosity, &b));
  } else if (name == "count" || name == "distinct" || name == "delete" || name == "update" ||
             name == "findAndModify") {
    QUARRY_RETURN_IF_ERROR(ExplainFilterCommand(ctx, explained, verbosity, &b));
  } else if (name == "aggregate") {
    QUARRY_RETURN_IF_ERROR(ExplainAggregate(ctx, explained, verbosity, &b));
  } else {
    return Status(ErrorCode::kCommandNotFound,
                  "Explain failed due to unknown command: " + std::string(name));
  }
  b.AppendDocument("command", explained.body);
  AppendServerInfo(ctx, &b);
  return std::move(b).Finish();
}

Status AppendExplainOfNothing(const std::string& ns, bson::DocumentView filter,
                              exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out) {
  out->OpenDocument("queryPlanner");
  out->AppendString("namespace", ns);
  out->AppendDocument("parsedQuery", filter);
  out->OpenDocument("winningPlan").AppendString("stage", "EOF").Close();
  out->OpenArray("rejectedPlans").Close();
  out->Close();
  if (verbosity == exec::ExplainVerbosity::kQueryPlanner) return Status::OK();
  out->OpenDocument("executionStats");
  out->AppendBool("executionSuccess", true);
  exec::AppendCount(out, "nReturned", 0);
  exec::AppendCount(out, "executionTimeMillis", 0);
  exec::AppendCount(out, "totalKeysExamined", 0);
  exec::AppendCount(out, "totalDocsExamined", 0);
  out->OpenDocument("executionStages").AppendString("stage", "EOF").Close();
  out->Close();
  return Status::OK();
}

void RegisterExplainCommand(CommandRegistry& registry) {
  registry.Add({.name = "explain", .run = RunExplain, .auth = Custom(AuthorizeExplain)});
}

}  // namespace quarry::commands
