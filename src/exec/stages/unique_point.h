// EXPRESS_IXSCAN: the one entry of a unique index whose key a filter pins, and the record it
// names, read with two point lookups. It answers what FETCH over a point IXSCAN answers without
// building index bounds, which cost as much as the lookups themselves; explain still shows that
// plan (exec/planner.cc uses this stage only outside explain).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "exec/index_catalog.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/index_store.h"
#include "storage/record_store.h"

namespace quarry::exec {

class UniqueIndexPoint final : public PlanStage {
 public:
  struct Target {
    storage::IndexId index = 0;
    std::shared_ptr<const ParsedIndex> parsed;
    std::string key;  // the encoded key fields (exec::UniquePointKey)
  };

  UniqueIndexPoint(const storage::IndexStore* indexes, const storage::RecordStore* records,
                   storage::CollectionId collection, Target target,
                   std::optional<query::Matcher> filter, bool want_match_details);

  std::string_view name() const override { return "EXPRESS_IXSCAN"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  // The summary of the plan it stands for ("IXSCAN { email: 1 }"), so that the slow-query log
  // and the profiler read alike whichever of the two ran.
  void AppendLeafSummary(std::string* out) const override;

  const storage::IndexStore* indexes_;
  const storage::RecordStore* records_;
  storage::CollectionId collection_;
  Target target_;
  std::optional<query::Matcher> filter_;
  bool want_match_details_;
  bool done_ = false;
};

}  // namespace quarry::exec
