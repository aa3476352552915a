// find, count and distinct on a view: each reads what an aggregate over the view returns, as
// mongod rewrites them.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "commands/command_context.h"
#include "commands/views/view_resolution.h"
#include "exec/collection.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {

// The collection or view `name` names (nullopt when neither exists), for the reads that take
// views (find, count, distinct, aggregate): each passes it to TakeView before reading it.
std::optional<exec::Collection> LookupCollectionOrView(CommandContext& ctx, std::string_view db,
                                                       std::string_view name);

// When `*found` (what LookupCollectionOrView gave for `name`) is a view: the view resolved, and
// `*found` emptied so that nothing reads the view's own records; nullopt otherwise.
StatusWith<std::optional<ResolvedView>> TakeView(CommandContext& ctx, std::string_view db,
                                                 std::string_view name,
                                                 std::optional<exec::Collection>* found);

// A find of `view` (already parsed and found valid by find's own parser), run as the aggregate
// mongod makes of it: $match, $sort, $skip, $limit, $project. Options an aggregate has no place
// for (min, max, returnKey, showRecordId, noCursorTimeout, allowPartialResults, a $natural sort,
// readOnce, singleBatch without limit 1) fail with 168 InvalidPipelineOperator.
StatusWith<bson::Document> FindOnView(CommandContext& ctx, const Request& request,
                                      const ResolvedView& view);

// Whether `filter` may hold a $text (at its top, or in the clauses of its $and and $or): a find
// with one runs as the aggregate FindAsAggregate makes of it, whose documents carry the scores.
bool MayHoldText(bson::DocumentView filter);

// A find of the collection or view `name` run as the aggregate FindAsAggregate makes of it.
StatusWith<bson::Document> FindOnCollectionAsAggregate(CommandContext& ctx, const Request& request,
                                                       std::string_view name);

// The aggregate a find of `view` becomes: its body, an aggregate on the view.
StatusWith<bson::Document> FindAsAggregate(bson::DocumentView find, std::string_view view_name);

// The aggregate a count of `view` becomes (mongod's rewrite): $match, $skip, $limit, $count.
bson::Document CountAsAggregate(bson::DocumentView count, std::string_view view_name);

// The aggregate a distinct of `view` becomes (mongod's rewrite): $match, $unwind of the key
// (keeping documents without it) and a $group that collects its values.
bson::Document DistinctAsAggregate(bson::DocumentView distinct, std::string_view view_name);

// 166 when `stages` cannot read a view: a change stream, or a first stage that reads a
// collection's indexes or statistics ($collStats, $indexStats, $planCacheStats, the search
// stages) rather than documents.
Status CheckPipelineReadsView(const ResolvedView& view, bson::DocumentView stages);

// The body of `aggregate`, an aggregate on `view`, rewritten over the view's source: the chain's
// stages before the request's, under the view's collation (167 when the request names
// another).
StatusWith<bson::Document> AggregateOverSource(const Request& aggregate, const ResolvedView& view);

// The documents of `view` that `filter` matches, for count and distinct. `collation` is the
// command's argument (167 when it differs from the view's); `hint` applies to the source.
StatusWith<std::unique_ptr<query::DocumentStream>> ReadView(CommandContext& ctx,
                                                            const ResolvedView& view,
                                                            bson::DocumentView filter,
                                                            bson::ValueView hint,
                                                            bson::ValueView collation);

}  // namespace quarry::commands
