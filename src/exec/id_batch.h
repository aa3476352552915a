// Consecutive single-document writes addressed by _id, committed together: a bulk of 100,000
// updateOne or deleteOne({_id: ...}) statements otherwise costs 100,000 commits. The command
// reads and prepares each statement as it comes and queues its change here; Flush commits them
// as one WriteUnit. This equals running the statements one by one because every queued
// statement touches a different document (a second statement for a queued _id flushes first)
// and nothing else of the command runs between a statement's read and the flush.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/status.h"
#include "exec/exec_context.h"
#include "storage/write_unit.h"

namespace quarry::exec {

template <typename Statement, typename Outcome>
class IdBatch {
 public:
  // Where each statement's outcome goes, by statement index, in index order. Returning false
  // stops the batch (an ordered command's first error).
  using Report = std::function<bool(std::size_t, StatusWith<Outcome>)>;
  // Runs one statement alone, re-reading what it targets.
  using RunAlone = std::function<StatusWith<Outcome>(const Statement&)>;

  // Enough to amortize a commit, small enough that a conflict re-runs little.
  static constexpr std::size_t kQueuedPerCommit = 1000;
  static constexpr std::size_t kQueuedBytes = std::size_t{8} << 20;

  // `reads_latest_of`: when the statements read the latest records (no transaction), the
  // pipeline they commit to, whose count of written chunks each unit notes before its
  // statements read (WriteUnit::ReadAfter); null otherwise.
  IdBatch(Committer commit, bool ordered, RunAlone run_alone,
          const storage::CommitPipeline* reads_latest_of = nullptr)
      : commit_(std::move(commit)),
        ordered_(ordered),
        run_alone_(std::move(run_alone)),
        reads_latest_of_(reads_latest_of) {
    StartUnit();
  }

  // Whether a queued statement changes the record with this key (storage::EncodeIdKey).
  bool Changes(const std::string& record_key) const { return keys_.contains(record_key); }
  // Where a statement puts its change before Queue.
  storage::WriteUnit& unit() { return unit_; }
  // Queues statement `index` with the outcome it has once its change commits. `mutation`:
  // its change in unit() (none when it changes nothing); `record_key`: the record it changes.
  void Queue(std::size_t index, Statement&& statement, Outcome outcome,
             std::optional<std::size_t> mutation, std::optional<std::string> record_key) {
    if (record_key.has_value()) keys_.insert(std::move(*record_key));
    queued_.push_back(Entry{index, std::move(statement), std::move(outcome), mutation});
  }
  bool full() const { return queued_.size() >= kQueuedPerCommit || unit_.bytes() >= kQueuedBytes; }

  // Commits the queued changes and reports each queued statement. A statement whose change did
  // not commit runs again alone — mostly a write conflict (its document changed after it was
  // read), and that run re-reads it; any other failure comes back from it too. An ordered
  // commit stops at its first failure, so every statement from there on runs again, in order.
  // False: `report` asked to stop.
  StatusWith<bool> Flush(const Report& report) {
    if (queued_.empty()) return true;
    std::vector<Entry> queued = std::move(queued_);
    storage::WriteUnit unit = std::move(unit_);
    queued_.clear();
    keys_.clear();
    unit_ = storage::WriteUnit();
    std::vector<bool> failed(unit.size(), false);
    if (!unit.empty()) {
      QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result, commit_(std::move(unit), ordered_));
      QUARRY_RETURN_IF_ERROR(result.sync_status);
      for (const storage::MutationError& error : result.errors) failed[error.index] = true;
    }
    bool rerun_rest = false;
    for (Entry& entry : queued) {
      const bool failed_here = entry.mutation.has_value() && failed[*entry.mutation];
      rerun_rest = rerun_rest || (failed_here && ordered_);
      StatusWith<Outcome> outcome = rerun_rest || failed_here
                                        ? run_alone_(entry.statement)
                                        : StatusWith<Outcome>(std::move(entry.outcome));
      if (!report(entry.index, std::move(outcome))) return false;
    }
    // After this batch's commit and any statement run alone: the count the next statements'
    // reads come after.
    StartUnit();
    return true;
  }
  // The same, noting in `*stop` when `report` asked to stop.
  Status Flush(const Report& report, bool* stop) {
    QUARRY_ASSIGN_OR_RETURN(bool go_on, Flush(report));
    *stop = *stop || !go_on;
    return Status::OK();
  }

 private:
  struct Entry {
    std::size_t index;
    Statement statement;
    Outcome outcome;
    std::optional<std::size_t> mutation;
  };

  void StartUnit() {
    unit_ = storage::WriteUnit();
    if (reads_latest_of_ != nullptr) unit_.ReadAfter(reads_latest_of_->ChunksWritten());
  }

  Committer commit_;
  bool ordered_;
  RunAlone run_alone_;
  const storage::CommitPipeline* reads_latest_of_;
  storage::WriteUnit unit_;
  std::vector<Entry> queued_;  // in statement order
  std::unordered_set<std::string> keys_;
};

}  // namespace quarry::exec
