// Consecutive single-document updates addressed by _id, committed together. A bulk of 100,000
// updateOne({_id: ...}) statements otherwise costs 100,000 commits. Each statement is read and
// applied as it comes; the changes are committed as one WriteUnit when the batch is flushed.
// This equals running the statements one by one because every queued statement touches a
// different document (a second statement for a queued _id flushes first), and nothing else of
// the command runs between a statement's read and the flush.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/collection_access.h"
#include "commands/crud/document_validator.h"
#include "commands/crud/update_executor.h"
#include "storage/write_unit.h"

namespace quarry::commands {

class UpdateBatch {
 public:
  // Where each statement's outcome goes, by statement index, in index order. Returning false
  // stops the batch (an ordered command's first error).
  using Report = std::function<bool(std::size_t, StatusWith<UpdateOutcome>)>;

  UpdateBatch(CommandContext& ctx, std::string db, std::string coll, bool ordered,
              bool bypass_validation);

  // The _id a statement addresses, when it can join a batch: q pins _id to one value
  // (query::IdEqualityValue), and it updates one document (upserting or not) without sort.
  static std::optional<bson::ValueView> BatchableId(bson::DocumentView raw_statement,
                                                    const UpdateStatement& statement);

  // Whether a statement for `id` can join now: the collection exists and no queued statement
  // has this _id. Otherwise Flush, then ask again (or run the statement alone).
  StatusWith<bool> CanJoin(bson::ValueView id);
  // Reads, applies and queues statement `index` (REQUIRES: CanJoin), taking `statement`.
  // False: it must run alone after all (an upsert whose _id exists but fails the rest of the
  // filter), and `statement` is left as it was. An error is the statement's own, for the
  // caller to report (after a Flush, in an ordered command).
  StatusWith<bool> Add(std::size_t index, bson::ValueView id, UpdateStatement&& statement);

  // Commits the queued changes and reports each queued statement. A statement whose document
  // changed after it was read runs again alone, as do (ordered) the ones queued after it.
  // False: `report` asked to stop.
  StatusWith<bool> Flush(const Report& report);

  bool full() const;

 private:
  struct Queued {
    std::size_t index;
    UpdateStatement statement;  // to run it again alone
    UpdateOutcome outcome;      // if its change commits (or it changes nothing)
    std::optional<std::size_t> mutation;  // its change in unit_; none when it changes nothing
  };
  Status Open();

  CommandContext& ctx_;
  std::string db_;
  std::string coll_;
  bool ordered_;
  bool bypass_validation_;
  std::optional<CollectionHandle> collection_;
  std::optional<DocumentValidator> validator_;
  storage::WriteUnit unit_;
  std::vector<Queued> queued_;  // in statement order
  std::unordered_set<std::string> queued_ids_;  // record keys
};

}  // namespace quarry::commands
