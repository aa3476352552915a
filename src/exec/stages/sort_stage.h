// SORT: reads every result of its child, orders them stably by a sort pattern (keeping only the
// first `limit` when the plan has one: a top-k sort), then returns them. Past its memory limit
// it spills sorted runs to disk when find's allowDiskUse gave it a directory
// (query/sort/external_sorter.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "exec/stages/plan_stage.h"
#include "query/sort/external_sorter.h"
#include "query/sort/sort.h"

namespace quarry::exec {

// mongod's internalQueryMaxBlockingSortMemoryUsageBytes.
inline constexpr std::size_t kMaxBlockingSortBytes = 100 * 1024 * 1024;

// A SORT's memory limit and where it may spill.
struct SortMemory {
  std::size_t max_bytes = kMaxBlockingSortBytes;
  // find's allowDiskUse: the server's spill directory; empty: past `max_bytes` the sort fails
  // with 292 QueryExceededMemoryLimitNoDiskUseAllowed, as mongod's does without allowDiskUse.
  std::string spill_dir;
};

class SortStage final : public PlanStage {
 public:
  // `limit` 0: all results.
  SortStage(std::unique_ptr<PlanStage> child, query::SortSpec sort, std::int64_t limit,
            SortMemory memory);

  std::string_view name() const override { return "SORT"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;
  void ExplainStats(bson::DocumentBuilder* b) const override;
  // Reads one unit of the child into the sorter; ends its input at the child's end.
  StatusWith<WorkState> LoadOne();

  query::SortSpec sort_;
  std::int64_t limit_;
  SortMemory memory_;
  std::unique_ptr<query::ExternalSorter> sorter_;  // null once every result was returned
  bool loaded_ = false;
  query::SpillStats spilled_;  // the sorter's, kept for explain after it is gone
  std::uint64_t bytes_sorted_ = 0;
};

}  // namespace quarry::exec
