// The aggregate command, which the reads of a view (find, count, distinct) also run.
#pragma once

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "commands/command_context.h"

namespace quarry::commands {

// Runs `request`, an aggregate command (on a collection, a view or `aggregate: 1`).
StatusWith<bson::Document> RunAggregate(CommandContext& ctx, const Request& request);

}  // namespace quarry::commands
