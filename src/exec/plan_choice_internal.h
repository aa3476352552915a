// Choosing a plan's access among its candidates: one candidate is taken as it is; several are
// tried side by side (multi_plan.h), or the plan cache's choice is taken (plan_cache.h). Private
// to the planner's files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "exec/access_plan_internal.h"
#include "exec/multi_plan.h"
#include "exec/stages/sort_stage.h"
#include "query/sort/sort.h"

namespace quarry::exec {

// How several candidates are tried, beyond the filter and sort.
struct TrialSetup {
  // PlanQuery's sort: a candidate that does not give this order has its SORT in the trial, as
  // mongod's candidates are whole plans. Null for PlanFilter, whose caller sorts.
  const query::SortSpec* blocking_sort = nullptr;
  std::int64_t sort_keep = 0;
  SortMemory sort_memory;
  std::int64_t max_results = kTrialMaxResults;
  // Makes the query's shape (query_shape.h); null: the query is not cached. Only a choice among
  // several candidates, and explain, need the shape, so most queries never make it.
  std::function<std::string()> make_shape;
  // The shape, made on first use; empty when the query is not cached.
  const std::string& Shape() const {
    if (!shape_.has_value()) shape_ = make_shape ? make_shape() : std::string();
    return *shape_;
  }
  // Which entry point planned it: PlanQuery's and PlanFilter's candidates differ, so their
  // plans are cached apart.
  std::string_view kind;
  bson::DocumentView sort_spec;
  bson::DocumentView projection_spec;
  // The paths a covered candidate must find in its index; nullopt: none is covered.
  CoverPaths cover_paths;
  // A filter that pins a unique index's key may be read by EXPRESS_IXSCAN instead of FETCH
  // over IXSCAN: not for explain, which shows the latter, nor for returnKey, which reads keys
  // from index scans.
  bool express = false;

 private:
  mutable std::optional<std::string> shape_;
};

// The access of a read with no hint among the candidates PlanQuery's contract lists (planner.h),
// or an Access with no root when there is none (a collection scan is the plan).
StatusWith<Access> ChooseAccess(const ExecContext& ctx, const Collection& collection,
                                const std::optional<query::Matcher>& filter,
                                const query::SortSpec& sort, const TrialSetup& setup,
                                bool want_match_details);

// For explain, which shows a query's queryHash and planCacheKey however it was planned: a plan
// chosen without a trial, under a stage that only carries them. Other plans are returned as
// they are.
Access WithCacheKeys(const ExecContext& ctx, Access access, const TrialSetup& setup);

}  // namespace quarry::exec
