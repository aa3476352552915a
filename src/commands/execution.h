// How a command handler reaches the execution layer: the request's exec context, commits with
// its write concern, and the DDL options that follow it.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "catalog/catalog.h"
#include "commands/command_context.h"
#include "cursors/cursor_manager.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "storage/commit_pipeline.h"

namespace quarry::commands {

// The engine, catalog and interrupt of this request.
exec::ExecContext ExecContextOf(CommandContext& ctx);

// The records as this request reads them: its transaction's view, or the latest.
const storage::RecordStore& RecordsFor(CommandContext& ctx);

// Options of a cursor this request opens: owned by its session, stopped by its interrupt.
cursors::CursorOptions CursorOptionsFor(const CommandContext& ctx);

// Commits `unit` for this request. A retryable write passes the test fail point first
// (onPrimaryTransactionalWrite), as it does wherever it really changes data.
StatusWith<storage::CommitResult> CommitForRequest(CommandContext& ctx, storage::WriteUnit unit,
                                                   const storage::CommitOptions& options);

// Commits with the request's write concern, through CommitForRequest. Outside a retryable
// write it holds what it uses by value, so it may outlive the request (an aggregation's $merge
// runs during later getMores); a retryable write's runs within its request.
exec::Committer CommitterOf(CommandContext& ctx);

// Commit options for the request's write concern.
storage::CommitOptions CommitOptionsFor(const CommandContext& ctx, bool ordered);

// DDL options for the request's write concern (j:true makes the catalog change durable too).
catalog::DdlOptions DdlOptionsFor(const CommandContext& ctx);

// Inside a transaction, mongod creates collections and indexes (`what`) only when the
// transaction reads with readConcern level local: InvalidOptions (72) otherwise.
Status CheckTransactionMayCreate(const CommandContext& ctx, std::string_view what);

// The collection, or nullopt when it does not exist. A view fails with 166
// CommandNotSupportedOnView: the commands that read views resolve them first
// (commands/views/view_resolution.h).
StatusWith<std::optional<exec::Collection>> LookupCollection(CommandContext& ctx,
                                                             std::string_view db,
                                                             std::string_view name);
// The collection, created (with its database) when missing, as inserts and upserts do.
StatusWith<exec::Collection> EnsureCollection(CommandContext& ctx, std::string_view db,
                                              std::string_view name);

}  // namespace quarry::commands
