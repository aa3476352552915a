#include "commands/execution.h"

#include <chrono>

#include "commands/auth/user_store.h"
#include "commands/test_hooks.h"
#include "commands/views/view_resolution.h"
#include "exec/index_maintenance.h"
#include "storage/engine.h"

namespace quarry::commands {

exec::ExecContext ExecContextOf(CommandContext& ctx) {
  return exec::ExecContext{.engine = &ctx.engine(),
                           .catalog = &ctx.catalog(),
                           .interrupt = ctx.interrupt(),
                           .transaction = ctx.transaction()};
}

const storage::RecordStore& RecordsFor(CommandContext& ctx) { return ExecContextOf(ctx).records(); }

cursors::CursorOptions CursorOptionsFor(const CommandContext& ctx) {
  cursors::CursorOptions options;
  options.session_id = ctx.session_key();
  options.interrupt = ctx.interrupt();
  options.owner = ctx.connection().auth.OwnerName();
  options.reads_through = ctx.shared_transaction();
  if (ctx.deadline().has_value()) {
    options.time_left = *ctx.deadline() - std::chrono::steady_clock::now();
  }
  return options;
}

StatusWith<storage::CommitResult> CommitForRequest(CommandContext& ctx, storage::WriteUnit unit,
                                                   const storage::CommitOptions& options) {
  if (ctx.transaction() != nullptr) {
    return exec::StageMaintainingIndexes(ctx.catalog(), *ctx.transaction(), std::move(unit),
                                         options.ordered);
  }
  if (ctx.retryable_write() != nullptr && ctx.service().test_hooks != nullptr && !unit.empty()) {
    QUARRY_RETURN_IF_ERROR(ctx.service().test_hooks->BeforeRetryableCommit(ctx));
  }
  return exec::CommitMaintainingIndexes(ctx.catalog(), ctx.engine().pipeline(), std::move(unit),
                                        options);
}

exec::Committer CommitterOf(CommandContext& ctx) {
  if (ctx.transaction() != nullptr) {
    // Staged in the transaction, which commits them with commitTransaction.
    catalog::Catalog* catalog = &ctx.catalog();
    storage::Transaction* txn = ctx.transaction();
    return [catalog, txn](storage::WriteUnit unit, bool ordered) {
      return exec::StageMaintainingIndexes(*catalog, *txn, std::move(unit), ordered);
    };
  }
  const storage::CommitOptions base = CommitOptionsFor(ctx, true);
  if (ctx.retryable_write() != nullptr) {
    return [&ctx, base](storage::WriteUnit unit, bool ordered) {
      storage::CommitOptions options = base;
      options.ordered = ordered;
      return CommitForRequest(ctx, std::move(unit), options);
    };
  }
  storage::Engine* engine = &ctx.engine();
  catalog::Catalog* catalog = &ctx.catalog();
  // The options' interrupt pointer must stay valid as long as the committer.
  std::shared_ptr<const Interrupt> interrupt = ctx.interrupt();
  return [engine, catalog, base, interrupt](storage::WriteUnit unit, bool ordered) {
    storage::CommitOptions options = base;
    options.ordered = ordered;
    options.interrupt = interrupt.get();
    return exec::CommitMaintainingIndexes(*catalog, engine->pipeline(), std::move(unit), options);
  };
}

storage::CommitOptions CommitOptionsFor(const CommandContext& ctx, bool ordered) {
  storage::CommitOptions options;
  options.ordered = ordered;
  options.durability =
      ctx.write_concern().journal ? storage::Durability::kJournal : storage::Durability::kNone;
  options.interrupt = ctx.interrupt().get();
  return options;
}

catalog::DdlOptions DdlOptionsFor(const CommandContext& ctx) {
  catalog::DdlOptions ddl;
  ddl.durability = CommitOptionsFor(ctx, true).durability;
  return ddl;
}

StatusWith<std::optional<exec::Collection>> LookupCollection(CommandContext& ctx,
                                                             std::string_view db,
                                                             std::string_view name) {
  std::optional<exec::Collection> found =
      exec::LookupCollection(ctx.catalog(), db, name, ctx.transaction());
  if (found.has_value() && found->info->is_view()) return NotSupportedOnView(db, name);
  return found;
}

Status CheckTransactionMayCreate(const CommandContext& ctx, std::string_view what) {
  if (ctx.transaction() == nullptr || ctx.transaction_reads_local()) return Status::OK();
  return Status(ErrorCode::kInvalidOptions,
                "Cannot create " + std::string(what) +
                    " in a multi-document transaction whose readConcern level is not 'local'");
}

StatusWith<exec::Collection> EnsureCollection(CommandContext& ctx, std::string_view db,
                                              std::string_view name) {
  catalog::DdlOptions ddl = DdlOptionsFor(ctx);
  // As in mongod, users and roles may be written directly (a restore merges them so), and the
  // first such write creates their collection; other system names are the server's own.
  ddl.allow_system_names =
      db == kAuthDatabase && (name == kUsersCollection || name == kRolesCollection);
  return exec::EnsureCollection(ctx.catalog(), db, name, ddl, ctx.transaction());
}

}  // namespace quarry::commands
