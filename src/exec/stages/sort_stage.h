// SORT: reads every result of its child into memory, orders them stably by a sort pattern
// (keeping only the first `limit` when the plan has one: a top-k sort), then returns them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "exec/stages/plan_stage.h"
#include "query/sort/sort.h"

namespace quarry::exec {

// mongod's internalQueryMaxBlockingSortMemoryUsageBytes.
inline constexpr std::size_t kMaxBlockingSortBytes = 100 * 1024 * 1024;

class SortStage final : public PlanStage {
 public:
  // `limit` 0: all results. Past `max_bytes` of buffered documents the sort fails with 292
  // QueryExceededMemoryLimitNoDiskUseAllowed, as mongod's does without allowDiskUse.
  SortStage(std::unique_ptr<PlanStage> child, query::SortSpec sort, std::int64_t limit,
            std::size_t max_bytes);

  std::string_view name() const override { return "SORT"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;
  // Reads one unit of the child into the buffer; sorts it at the child's end.
  StatusWith<WorkState> LoadOne();
  void SortAndTrim();

  struct Buffered {
    bson::Document doc;
    query::MatchDetails details;
  };

  query::SortSpec sort_;
  std::size_t keep_;  // results that can be returned: limit, or all
  std::size_t max_bytes_;
  bool loaded_ = false;
  std::vector<Buffered> buffered_;
  std::size_t buffered_bytes_ = 0;
  std::size_t next_ = 0;
};

}  // namespace quarry::exec
