// $indexStats: one document per index of a collection, with how often queries read it.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

// Checks the stage's argument (an empty document, else 28803) and returns mongod's documents
// {name, key, host, accesses: {ops, since}, spec[, building: true]} for `db.coll`; none when the
// collection does not exist.
StatusWith<std::vector<bson::Document>> IndexStatsDocuments(CommandContext& ctx,
                                                            const std::string& db,
                                                            const std::string& coll,
                                                            bson::ValueView argument);

}  // namespace quarry::commands
