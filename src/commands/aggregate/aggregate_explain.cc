// explain of aggregate, in mongod's two shapes: a pipeline the query layer answers whole reports
// its plan as a find would (queryPlanner, executionStats); any other lists its stages, the plan
// first as {$cursor: {queryPlanner, executionStats}}, each with what it returned at
// executionStats verbosity.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "changestream/change_stream_spec.h"
#include "collation/collator.h"
#include "commands/aggregate/aggregate_io.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/explain/explainers.h"
#include "commands/request_parser.h"
#include "exec/explain.h"
#include "exec/explain_count.h"
#include "exec/pipeline_input.h"
#include "exec/plan_stream.h"
#include "exec/planner.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {
namespace {

using Clock = std::chrono::steady_clock;

// What one stage handed to the next.
struct StageCounts {
  std::int64_t returned = 0;
  Clock::duration time{};  // in its Next calls, so it includes the stages before it, as mongod's
  const query::DocumentStream* stage_output = nullptr;  // for the stage's own statistics
};

class CountingStream final : public query::DocumentStream {
 public:
  CountingStream(std::unique_ptr<query::DocumentStream> inner, StageCounts* counts)
      : inner_(std::move(inner)), counts_(counts) {}

  StatusWith<bool> Next(bson::Document* out) override {
    const Clock::time_point start = Clock::now();
    StatusWith<bool> more = inner_->Next(out);
    counts_->time += Clock::now() - start;
    if (more.ok() && more.value()) ++counts_->returned;
    return more;
  }
  const query::DocumentMetadata& metadata() const override { return inner_->metadata(); }

 private:
  std::unique_ptr<query::DocumentStream> inner_;
  StageCounts* counts_;
};

std::int64_t Millis(Clock::duration time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time).count();
}

void AppendCounts(const StageCounts& counts, bson::DocumentBuilder* b) {
  exec::AppendCount(b, "nReturned", counts.returned);
  exec::AppendCount(b, "executionTimeMillisEstimate", Millis(counts.time));
}

// The parsed request: what explain needs of an aggregate.
struct AggregateArgs {
  std::string coll;  // empty for `aggregate: 1`
  bson::DocumentView stages;
  bson::DocumentView let;
  bool allow_disk_use = false;
  bson::ValueView hint;
  collation::CollatorPtr collator;  // the command's, else the collection's default
};

StatusWith<AggregateArgs> ParseArgs(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  AggregateArgs parsed;
  bson::ValueView target = request.body.Get(request.name);
  bson::ValueView pipeline = args.Raw("pipeline");
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::DocumentView> cursor, args.MaybeDocument("cursor"));
  (void)cursor;
  QUARRY_ASSIGN_OR_RETURN(bool explain, args.OptionalBool("explain", false));
  (void)explain;
  QUARRY_ASSIGN_OR_RETURN(parsed.allow_disk_use, args.OptionalBool("allowDiskUse", false));
  QUARRY_ASSIGN_OR_RETURN(parsed.let, args.OptionalDocument("let"));
  bson::ValueView collation = args.Raw("collation");
  QUARRY_ASSIGN_OR_RETURN(parsed.collator, collation::Collator::ParseArgument(collation, ""));
  parsed.hint = args.Raw("hint");
  args.Ignore({"bypassDocumentValidation", "fromMongos", "needsMerge",
               "$_requestReshardingResumeToken", "isMapReduceCommand"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (pipeline.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch, "'pipeline' option must be specified as an array");
  }
  parsed.stages = pipeline.Document();
  if (target.type() == bson::Type::kString) {
    parsed.coll = std::string(target.String());
    if (!NamesCollation(collation)) {
      QUARRY_ASSIGN_OR_RETURN(parsed.collator,
                              CollectionDefaultCollator(ctx, request.db, parsed.coll));
    }
  } else if (!(target.IsNumber() && target.AsDouble() == 1)) {
    return Status(
        ErrorCode::kFailedToParse,
        "Invalid command format: the 'aggregate' field must specify a collection name or 1");
  }
  return parsed;
}

}  // namespace

Status ExplainAggregate(CommandContext& ctx, const Request& request,
                        exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out) {
  QUARRY_ASSIGN_OR_RETURN(AggregateArgs args, ParseArgs(ctx, request));
  QUARRY_ASSIGN_OR_RETURN(bool change_stream, changestream::IsChangeStreamPipeline(args.stages));
  if (change_stream) {
    return Status(ErrorCode::kCommandNotSupported,
                  "explain of a $changeStream pipeline is not supported by Quarry");
  }
  // Source stages that read server state or a search index instead of a collection's plan.
  auto first = args.stages.begin();
  if (first != args.stages.end() && first->value.type() == bson::Type::kDocument) {
    const std::string_view name = first->value.Document().FirstKey();
    if (name == "$search" || name == "$searchMeta" || name == "$vectorSearch" ||
        name == "$listSearchIndexes" || name == "$indexStats" || name == "$collStats" ||
        name == "$planCacheStats" || name == "$currentOp" || name == "$listSessions" ||
        name == "$listLocalSessions") {
      return Status(ErrorCode::kNotImplemented, "explain of a pipeline that starts with " +
                                                    std::string(name) +
                                                    " is not supported by Quarry yet");
    }
  }
  auto io = std::make_shared<AggregateIo>(ctx);
  query::PipelineContext pipeline_ctx =
      io->MakePipelineContext(request.db, args.let, args.allow_disk_use);
  pipeline_ctx.collator = args.collator;
  QUARRY_ASSIGN_OR_RETURN(query::Pipeline pipeline,
                          query::Pipeline::Parse(args.stages, std::move(pipeline_ctx)));
  const bool executes = verbosity != exec::ExplainVerbosity::kQueryPlanner;
  if (executes && pipeline.writes_output()) {
    // Running the pipeline to count its results would write its output.
    return Status(static_cast<ErrorCode>(51029),
                  "explain of a pipeline that ends in $out or $merge supports the "
                  "'queryPlanner' verbosity only");
  }
  const std::string ns = request.db + "." + (args.coll.empty() ? "$cmd.aggregate" : args.coll);
  std::optional<exec::Collection> collection;
  if (!args.coll.empty()) {
    QUARRY_ASSIGN_OR_RETURN(collection, LookupCollection(ctx, request.db, args.coll));
  }

  // The input: the collection's plan, or nothing at all.
  exec::PipelineInputPlan input;
  if (collection.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint hint, exec::ResolveHint(*collection, args.hint));
    exec::ExecContext exec_ctx = ExecContextOf(ctx);
    exec_ctx.for_explain = true;
    QUARRY_ASSIGN_OR_RETURN(input, exec::PlanPipelineInput(exec_ctx, *collection, pipeline, hint));
  } else if (!pipeline.stages().empty() && pipeline.stages().front()->pushdown_filter()) {
    input.absorbed_stages = 1;
    input.filter = bson::Document::Copy(pipeline.stages().front()->pushdown_filter()->filter());
  }
  const bool whole = input.absorbed_stages == pipeline.stages().size();
  const exec::ExplainTarget target{.ns = ns,
                                   .parsed_query = input.filter,
                                   .command_stage = {},
                                   .optimized_pipeline = true,
                                   .collation = SpecOf(args.collator)};
  if (whole && !args.coll.empty()) {
    if (input.root == nullptr) return AppendExplainOfNothing(ns, input.filter, verbosity, out);
    return exec::AppendExplain(*input.root, target, verbosity, out);
  }

  pipeline.RemoveFirstStages(input.absorbed_stages);
  exec::PlanStage* plan = input.root.get();
  std::unique_ptr<query::DocumentStream> source =
      plan != nullptr ? exec::StreamOfPlan(std::move(input.root)) : query::StreamOfDocuments({});
  StageCounts cursor_counts;
  std::vector<StageCounts> stage_counts(pipeline.stages().size());
  source = std::make_unique<CountingStream>(std::move(source), &cursor_counts);
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<query::DocumentStream> output,
      pipeline.RunObserved(
          std::move(source),
          [&](std::size_t stage_idx,
              std::unique_ptr<query::DocumentStream> s) -> std::unique_ptr<query::DocumentStream> {
            stage_counts[stage_idx].stage_output = s.get();
            return std::make_unique<CountingStream>(std::move(s), &stage_counts[stage_idx]);
          }));
  if (executes) {
    bson::Document doc;
    while (true) {
      QUARRY_ASSIGN_OR_RETURN(bool more, output->Next(&doc));
      if (!more) break;
    }
  }

  out->OpenArray("stages");
  std::size_t position = 0;
  if (!args.coll.empty()) {
    out->OpenDocument(std::to_string(position++));
    out->OpenDocument("$cursor");
    exec::ExplainTarget cursor_target = target;
    cursor_target.optimized_pipeline = false;
    if (plan == nullptr) {
      QUARRY_RETURN_IF_ERROR(AppendExplainOfNothing(ns, input.filter, verbosity, out));
    } else {
      exec::AppendQueryPlanner(*plan, cursor_target, out);
      if (executes) {
        exec::AppendExecutionStats(*plan, cursor_target, verbosity, plan->stats().advanced,
                                   Millis(cursor_counts.time), out);
      }
    }
    out->Close();
    if (executes) AppendCounts(cursor_counts, out);
    out->Close();
  }
  for (std::size_t stage_idx = 0; stage_idx < pipeline.stages().size(); ++stage_idx) {
    const query::Stage& stage = *pipeline.stages()[stage_idx];
    out->OpenDocument(std::to_string(position++));
    out->Append(stage.name(), stage.spec());
    if (executes) {
      const StageCounts& counts = stage_counts[stage_idx];
      if (counts.stage_output != nullptr) counts.stage_output->AppendExecutionStats(out);
      AppendCounts(counts, out);
    }
    out->Close();
  }
  out->Close();
  return Status::OK();
}

}  // namespace quarry::commands
