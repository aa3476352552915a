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

// The report for a collection that does not exist: an EOF plan that returns nothing.
Status AppendExplainOfNothing(const std::string& ns, bson::DocumentView filter,
                              exec::ExplainVerbosity verbosity, bson::DocumentBuilder* out);

}  // namespace quarry::commands
