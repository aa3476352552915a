// The record of one point lookup, checked against the rest of the filter: what IDHACK and
// EXPRESS_IXSCAN hand up.
#pragma once

#include <optional>
#include <string_view>

#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/record_store.h"

namespace quarry::exec {

// Reads the record whose id key is `id_key` into `*out` when it exists and matches `filter`
// (with match details when `want_match_details`); counts it in `*stats` when it exists.
// Returns whether `*out` holds it.
StatusWith<bool> ReadPointRecord(const storage::RecordStore& records,
                                 storage::CollectionId collection, std::string_view id_key,
                                 const std::optional<query::Matcher>& filter,
                                 bool want_match_details, StageStats* stats, PlanResult* out);

}  // namespace quarry::exec
