// How a command handler reaches the execution layer: the request's exec context, commits with
// its write concern, and the DDL options that follow it.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "catalog/catalog.h"
#include "commands/command_context.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "storage/commit_pipeline.h"

namespace quarry::commands {

// The engine, catalog and interrupt of this request.
exec::ExecContext ExecContextOf(CommandContext& ctx);

// Commits with the request's write concern. Everything it uses is held by value, so the
// committer may outlive the request (an aggregation's $merge runs during later getMores).
exec::Committer CommitterOf(CommandContext& ctx);

// Commit options for the request's write concern.
storage::CommitOptions CommitOptionsFor(const CommandContext& ctx, bool ordered);

// DDL options for the request's write concern (j:true makes the catalog change durable too).
catalog::DdlOptions DdlOptionsFor(const CommandContext& ctx);

// The collection, or nullopt when it does not exist.
std::optional<exec::Collection> LookupCollection(CommandContext& ctx, std::string_view db,
                                                 std::string_view name);
// The collection, created (with its database) when missing, as inserts and upserts do.
StatusWith<exec::Collection> EnsureCollection(CommandContext& ctx, std::string_view db,
                                              std::string_view name);

}  // namespace quarry::commands
