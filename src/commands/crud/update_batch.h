// updateOne statements that pin _id, upserting or not, committed together (id_batch.h says
// why that equals running them one by one).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "base/status.h"
#include "bson/value.h"
#include "commands/crud/document_validator.h"
#include "commands/crud/update_executor.h"
#include "exec/collection.h"
#include "exec/id_batch.h"

namespace quarry::commands {

class UpdateBatch {
 public:
  using Report = exec::IdBatch<UpdateStatement, UpdateOutcome>::Report;

  UpdateBatch(CommandContext& ctx, std::string db, std::string coll, bool ordered,
              bool bypass_validation);
  UpdateBatch(const UpdateBatch&) = delete;  // its queue calls back into this object
  UpdateBatch& operator=(const UpdateBatch&) = delete;

  // The _id a statement addresses, when it can join a batch: q pins _id to one value
  // (exec::IdPoint), and it updates one document (upserting or not) without sort. The view
  // points into the statement's matcher.
  static std::optional<bson::ValueView> BatchableId(const UpdateStatement& statement);

  // Whether a statement for `id` can join now: the collection exists and no queued statement
  // has this _id. Otherwise Flush, then ask again (or run the statement alone).
  StatusWith<bool> CanJoin(bson::ValueView id);
  // Reads, applies and queues statement `index` (REQUIRES: CanJoin), taking `statement`.
  // False: it must run alone after all (an upsert whose _id exists but fails the rest of the
  // filter), and `statement` is left as it was. An error is the statement's own, for the
  // caller to report (after a Flush, in an ordered command).
  StatusWith<bool> Add(std::size_t index, bson::ValueView id, UpdateStatement&& statement);

  // Commits the queued changes and reports each queued statement (IdBatch::Flush).
  Status Flush(const Report& report, bool* stop) { return queue_.Flush(report, stop); }
  bool full() const { return queue_.full(); }

 private:
  Status Open();

  CommandContext& ctx_;
  std::string db_;
  std::string coll_;
  bool bypass_validation_;
  std::optional<exec::Collection> collection_;
  std::optional<DocumentValidator> validator_;
  exec::IdBatch<UpdateStatement, UpdateOutcome> queue_;
};

}  // namespace quarry::commands
