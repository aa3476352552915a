// $collStats: the one document of a collection's statistics its argument asks for.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"

namespace quarry::commands {

// Checks the stage's argument as mongod does ({latencyStats?: {histograms?}, storageStats?:
// {scale?, verbose?, waitForLock?, numericOnly?}, count?, queryExecStats?}) and returns its
// document {ns, host, localTime, latencyStats?, storageStats?, count?, queryExecStats?} for
// `db.coll`, the latencies and scans as NamespaceUsage counted them.
StatusWith<std::vector<bson::Document>> CollStatsDocuments(CommandContext& ctx,
                                                           const std::string& db,
                                                           const std::string& coll,
                                                           bson::ValueView argument);

}  // namespace quarry::commands
