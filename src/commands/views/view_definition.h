// The checks create and collMod make of a view's definition, as mongod makes them.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

struct ViewDefinition {
  bson::ValueView view_on;       // the command's `viewOn`
  bson::ValueView pipeline;      // its `pipeline` (absent: no stages)
  bson::DocumentView collation;  // the view's collation, fully specified; empty for simple
};

// The options a view `db`.`name` defined so is stored with: {viewOn, pipeline[, collation]}.
// `command` names the command in errors. Fails as mongod does: 14 for a `viewOn` that is not a
// string or a `pipeline` that is not an array of documents, 167 OptionNotSupportedOnView for
// $out, $merge or $changeStream in the pipeline and for a collation other than that of the view
// it is defined on, 73 for a stage that reads no collection ($currentOp, $documents...), each
// stage's own parse errors, 5 GraphContainsCycle for a view that would read itself and 149
// ViewDepthLimitExceeded past 20 views.
StatusWith<bson::Document> ViewOptions(CommandContext& ctx, std::string_view db,
                                       std::string_view name, const ViewDefinition& definition,
                                       std::string_view command);

}  // namespace quarry::commands
