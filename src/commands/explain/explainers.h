// How each explainable command explains itself: the plan it would run, from its own parsed
// arguments, reported by exec/explain.h.
#pragma once

#include <string>

#include "base/status.h"
#include "bson/builder.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "exec/explain.h"

namespace quarry::commands {

// `request` is the command inside explain, with explain's database.
Status ExplainFind(CommandContext& ctx, const Request& request, exec::ExplainVerbosity verbosity,
                   bson::DocumentBuilder* out);

// `request` is an aggregate: its pipeline's plan and stages (aggregate_explain.cc).
Status ExplainAggregate(CommandContext& ctx, const Request& request,
                        exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out);

// explain's reply for `explained`: explainVersion, the command's report, the command as given
// and serverInfo. The aggregate command's `explain: true` is answered with it too.
StatusWith<bson::Document> ExplainReply(CommandContext& ctx, const Request& explained,
                                        exec::ExplainVerbosity verbosity);

// The report for a collection that does not exist: an EOF plan that returns nothing.
Status AppendExplainOfNothing(const std::string& ns, bson::DocumentView filter,
                              exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out);

}  // namespace quarry::commands
