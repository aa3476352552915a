// The access paths the planner builds: where a plan's documents come from, before sort, skip,
// limit and projection. Private to the planner's files.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/index_choice.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"

namespace quarry::exec {

struct Access {
  std::unique_ptr<PlanStage> root;
  bool provides_sort = false;
};

// What a covered read must find in an index: the paths its filter, sort and projection read
// (covered_read.h); nullopt for a read no index can cover.
using CoverPaths = std::optional<std::vector<std::string>>;

// FETCH over an IXSCAN of `access`, keeping the records that match `filter`; or, when the
// index holds every path in `cover`, the IXSCAN alone, handing up its entries' key values.
std::unique_ptr<PlanStage> IndexPlanOf(const ExecContext& ctx, const Collection& collection,
                                       IndexAccess access,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details, const CoverPaths& cover);

// EXPRESS_IXSCAN for a filter whose equalities pin every key field of a unique index (as
// UniquePointAccess finds it), or null when the index's bounds are not that one key or a
// collation is involved: then FETCH over a point IXSCAN reads it.
StatusWith<std::unique_ptr<PlanStage>> UniquePointPlanOf(const ExecContext& ctx,
                                                         const Collection& collection,
                                                         const query::Matcher& filter,
                                                         bool want_match_details);

// Whether `plan` reads index key values only (a covered IXSCAN), no records.
bool ReadsKeysOnly(const PlanStage& plan);

// FETCH over an OR of one scan per $or branch: FETCH checks the whole filter, since a branch's
// scan also reads records that match that branch only.
std::unique_ptr<PlanStage> OrPlanOf(const ExecContext& ctx, const Collection& collection,
                                    std::vector<IndexAccess> branches,
                                    const std::optional<query::Matcher>& filter,
                                    bool want_match_details);

// SORT_MERGE of `scans`, which each give `sort` (index_choice.h's ScansGivingSort), under one
// FETCH that checks the whole filter; or, when every scan reads one index that holds every path
// in `cover`, the merge of their covered entries.
std::unique_ptr<PlanStage> MergePlanOf(const ExecContext& ctx, const Collection& collection,
                                       std::vector<IndexAccess> scans, const query::SortSpec& sort,
                                       const std::optional<query::Matcher>& filter,
                                       bool want_match_details, const CoverPaths& cover);

// TEXT_MATCH over the collection's text index for `filter`, which holds a $text (text_plan.cc).
// Fails as mongod does: 27 without a visible text index, 2 with a hint or a $natural sort.
StatusWith<Access> TextAccess(const ExecContext& ctx, const Collection& collection,
                              const query::Matcher& filter, const query::SortSpec& sort,
                              bool hinted);

}  // namespace quarry::exec
