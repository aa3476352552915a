// Whether a query may use a partial index: only when every document it matches is in the index,
// which is when its filter implies the index's partialFilterExpression.
#pragma once

#include "bson/value.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// True when every document `query` matches also matches `partial_filter`, as far as a check of
// their top-level conditions can prove: each condition of the partial filter ({f: v}, $eq, $gt,
// $gte, $lt, $lte, {$exists: true}, and those inside $and) must be implied by a condition of the
// query on the same field (an equal value, a tighter range, or any non-null condition for
// $exists). False when it cannot tell, as for any other operator.
bool FilterImplies(const query::Matcher& query, bson::DocumentView partial_filter);

}  // namespace quarry::exec
