// count and distinct: the read commands drivers use for estimatedDocumentCount and distinct().
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/compare.h"
#include "collation/collator.h"
#include "commands/collation_default.h"
#include "commands/command_context.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/replication/local_collections.h"
#include "commands/request_parser.h"
#include "commands/views/view_reads.h"
#include "exec/distinct_plan.h"
#include "exec/planner.h"
#include "exec/write_matches.h"
#include "query/match/field_path.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

bson::Document CountReply(std::int64_t n) {
  bson::DocumentBuilder b;
  b.AppendInt64("n", n);
  return std::move(b).Finish();
}

// The documents of `docs` after the first `skip`, up to `limit` of them (0: all).
StatusWith<std::int64_t> CountStream(query::DocumentStream* docs, std::int64_t skip,
                                     std::int64_t limit) {
  std::int64_t n = 0;
  bson::Document doc;
  while (limit == 0 || n < limit) {
    QUARRY_ASSIGN_OR_RETURN(bool more, docs->Next(&doc));
    if (!more) break;
    if (skip > 0) {
      --skip;
      continue;
    }
    ++n;
  }
  return n;
}

StatusWith<bson::Document> RunCount(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckReadableBy(ctx.service(), "count", request.db, coll));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView filter, args.OptionalDocument("query"));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t skip, args.OptionalNonNegative("skip", 0));
  QUARRY_ASSIGN_OR_RETURN(std::int64_t limit, args.OptionalInt("limit", 0));
  bson::ValueView hint = args.Raw("hint");
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                          CommandCollator(ctx, request.db, coll, args.Raw("collation"), ""));
  args.Ignore({"fields"});
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (limit < 0) limit = -limit;  // the legacy shell's negative limits mean the same here
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher,
                          query::Matcher::Parse(filter, bson::DocumentView(), collator));

  std::optional<exec::Collection> collection = LookupCollectionOrView(ctx, request.db, coll);
  QUARRY_ASSIGN_OR_RETURN(std::optional<ResolvedView> view,
                          TakeView(ctx, request.db, coll, &collection));
  if (view.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<query::DocumentStream> docs,
                            ReadView(ctx, *view, filter, hint, request.body.Get("collation")));
    QUARRY_ASSIGN_OR_RETURN(std::int64_t counted, CountStream(docs.get(), skip, limit));
    return CountReply(counted);
  }
  std::int64_t n = 0;
  if (collection.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint resolved, exec::ResolveHint(*collection, hint));
    if (matcher.MatchesEverything()) {
      n = ctx.engine().records().Count(collection->id);  // exact, kept by every commit
      n = std::max<std::int64_t>(0, n - skip);
    } else {
      std::int64_t to_skip = skip;
      QUARRY_RETURN_IF_ERROR(exec::ForEachMatch(
          ExecContextOf(ctx), *collection, matcher,
          [&](bson::DocumentView, const query::MatchDetails&) {
            if (to_skip > 0) {
              --to_skip;
              return true;
            }
            ++n;
            return limit == 0 || n < limit;
          },
          resolved));
    }
    if (limit > 0) n = std::min(n, limit);
  }
  return CountReply(n);
}

StatusWith<bson::Document> RunDistinct(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_RETURN_IF_ERROR(CheckReadableBy(ctx.service(), "distinct", request.db, coll));
  QUARRY_ASSIGN_OR_RETURN(std::string key, args.RequiredString("key"));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView filter, args.OptionalDocument("query"));
  bson::ValueView hint = args.Raw("hint");
  QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                          CommandCollator(ctx, request.db, coll, args.Raw("collation"), ""));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher,
                          query::Matcher::Parse(filter, bson::DocumentView(), collator));
  query::FieldPath path = query::FieldPath::FromDotted(key);

  // Each distinct value is kept as a one-field document {v: value}, ordered as MongoDB orders
  // values under the collation, so duplicates (1 and 1.0, and strings the collation finds
  // equal, the first one met staying) collapse.
  auto by_value = [strings = collator.get()](const bson::Document& a, const bson::Document& b) {
    return bson::CompareValues(a.Get("v"), b.Get("v"), strings) < 0;
  };
  std::set<bson::Document, decltype(by_value)> values(by_value);
  auto collect = [&](bson::DocumentView doc) {
    for (bson::ValueView v : query::CollectPathValues(doc, path)) {
      // mongod's distinct skips missing values and empty arrays.
      if (!v.exists() || (v.type() == bson::Type::kArray && v.Document().empty())) continue;
      bson::DocumentBuilder holder;
      holder.Append("v", v);
      values.insert(std::move(holder).Finish());
    }
  };
  std::optional<exec::Collection> collection = LookupCollectionOrView(ctx, request.db, coll);
  QUARRY_ASSIGN_OR_RETURN(std::optional<ResolvedView> view,
                          TakeView(ctx, request.db, coll, &collection));
  if (view.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<query::DocumentStream> docs,
                            ReadView(ctx, *view, filter, hint, request.body.Get("collation")));
    bson::Document doc;
    while (true) {
      QUARRY_ASSIGN_OR_RETURN(bool more, docs->Next(&doc));
      if (!more) break;
      collect(doc);
    }
  }
  if (collection.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(exec::ResolvedHint resolved, exec::ResolveHint(*collection, hint));
    QUARRY_ASSIGN_OR_RETURN(
        std::unique_ptr<exec::PlanStage> distinct_scan,
        exec::PlanDistinctScan(ExecContextOf(ctx), *collection, matcher, key, resolved));
    if (distinct_scan != nullptr) {
      exec::PlanResult result;
      while (true) {
        QUARRY_ASSIGN_OR_RETURN(bool more, distinct_scan->Next(&result));
        if (!more) break;
        collect(result.doc);
      }
    } else {
      QUARRY_RETURN_IF_ERROR(exec::ForEachMatch(
          ExecContextOf(ctx), *collection, matcher,
          [&](bson::DocumentView doc, const query::MatchDetails&) {
            collect(doc);
            return true;
          },
          resolved));
    }
  }
  bson::DocumentBuilder b;
  b.OpenArray("values");
  std::size_t i = 0;
  for (const bson::Document& value : values) b.Append(std::to_string(i++), value.Get("v"));
  b.Close();
  return std::move(b).Finish();
}

}  // namespace

void RegisterCountCommands(CommandRegistry& registry) {
  registry.Add({.name = "count",
                .run = RunCount,
                .latency = LatencyClass::kRead,
                .auth = OnNamespace({auth::ActionType::kFind})});
  registry.Add({.name = "distinct",
                .flags = kAllowedInTransaction,
                .run = RunDistinct,
                .latency = LatencyClass::kRead,
                .auth = OnNamespace({auth::ActionType::kFind})});
}

}  // namespace quarry::commands
