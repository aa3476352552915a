#include "exec/write_matches.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "exec/operation_work.h"
#include "exec/plan_executor.h"
#include "exec/planner.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

constexpr int kMaxConflictRetries = 100;
constexpr std::size_t kChangesPerCommit = 1000;

Status GaveUp() {
  return Status(ErrorCode::kWriteConflict, "the write gave up after repeated write conflicts");
}

// The plan's first match, or the first in `sort` order, with its match details. A plan that
// returns documents in `sort` order (an index gives it) stops at its first.
struct Target {
  bson::Document doc;
  query::MatchDetails details;
  std::optional<double> text_score;  // from a $text search
};

// The metadata a sort by {$meta: "textScore"} reads: {textScore: score}, or {} without one.
bson::Document MetadataOf(std::optional<double> text_score) {
  bson::DocumentBuilder b;
  if (text_score.has_value()) b.AppendDouble("textScore", *text_score);
  return std::move(b).Finish();
}

// Whether `result` goes before `best` in `sort`'s order.
bool SortsBefore(const query::SortSpec& sort, const PlanResult& result, const Target& best) {
  if (!sort.sorts_by_text_score()) return sort.Compare(result.doc, best.doc) < 0;
  const bson::Document metadata = MetadataOf(result.text_score);
  const bson::Document best_metadata = MetadataOf(best.text_score);
  return sort.CompareKeys(sort.MakeKey(result.doc, metadata.view()),
                          sort.MakeKey(best.doc.view(), best_metadata.view())) < 0;
}

StatusWith<std::optional<Target>> FindTarget(const ExecContext& ctx, const Collection& collection,
                                             const query::Matcher& matcher,
                                             const query::SortSpec* sort,
                                             const ResolvedHint& hint) {
  static const query::SortSpec kNoSort;
  QUARRY_ASSIGN_OR_RETURN(FilterPlan plan,
                          PlanFilter(ctx, collection, matcher, hint, sort ? *sort : kNoSort));
  const bool sorting = sort != nullptr && sort->needs_sort() && !plan.sorted;
  std::optional<Target> best;
  QUARRY_RETURN_IF_ERROR(ForEachPlanResult(*plan.root, [&](const PlanResult& result) {
    if (!best.has_value() || (sorting && SortsBefore(*sort, result, *best))) {
      best = Target{bson::Document::Copy(result.doc), result.details, result.text_score};
    }
    return sorting;
  }));
  return best;
}

}  // namespace

bson::Document IdDocument(bson::ValueView id) {
  bson::DocumentBuilder b;
  b.Append("_id", id);
  return std::move(b).Finish();
}

Status ForEachMatch(
    const ExecContext& ctx, const Collection& collection, const query::Matcher& matcher,
    const std::function<bool(bson::DocumentView, const query::MatchDetails&)>& visit,
    const ResolvedHint& hint) {
  QUARRY_ASSIGN_OR_RETURN(FilterPlan plan, PlanFilter(ctx, collection, matcher, hint));
  return ForEachResult(*plan.root, visit);
}

StatusWith<std::optional<bson::Document>> ReadById(const ExecContext& ctx,
                                                   const Collection& collection,
                                                   bson::ValueView id) {
  return ctx.records().FindById(collection.id, id);
}

StatusWith<MatchCounts> ChangeEveryMatch(const ExecContext& ctx, const Collection& collection,
                                         const query::Matcher& matcher, const Committer& commit,
                                         const ChangeFunction& change, const ResolvedHint& hint) {
  MatchCounts counts;
  // An index scan may meet a changed document again under its new key: the ids changed so far
  // keep it from being changed twice. A collection scan reads a snapshot and never does.
  const bool track_changed = collection.info->has_secondary_indexes();
  std::unordered_set<std::string> changed_ids;
  storage::WriteUnit unit;
  std::vector<bson::Document> ids;        // per mutation of `unit`
  std::vector<bson::Document> conflicts;  // to read again
  auto flush = [&]() -> Status {
    if (unit.empty()) return Status::OK();
    QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result,
                            commit(std::exchange(unit, storage::WriteUnit()), /*ordered=*/false));
    for (const storage::MutationError& error : result.errors) {
      if (error.status.code() != ErrorCode::kWriteConflict) return error.status;
      ++ThisThreadWork().write_conflicts;
      --counts.changed;
      if (track_changed) changed_ids.erase(storage::EncodeIdKey(ids[error.index].Get("_id")));
      conflicts.push_back(std::move(ids[error.index]));
    }
    ids.clear();
    return result.sync_status;
  };
  auto consider = [&](bson::DocumentView doc, const query::MatchDetails& details) -> Status {
    if (track_changed && changed_ids.contains(storage::EncodeIdKey(doc.Get("_id")))) {
      return Status::OK();
    }
    ++counts.matched;
    QUARRY_ASSIGN_OR_RETURN(bool changed, change(doc, details, &unit));
    if (!changed) return Status::OK();
    if (track_changed) changed_ids.insert(storage::EncodeIdKey(doc.Get("_id")));
    ++counts.changed;
    ids.push_back(IdDocument(doc.Get("_id")));
    return unit.size() >= kChangesPerCommit ? flush() : Status::OK();
  };

  Status failed;
  QUARRY_RETURN_IF_ERROR(ForEachMatch(
      ctx, collection, matcher,
      [&](bson::DocumentView doc, const query::MatchDetails& d) {
        failed = consider(doc, d);
        return failed.ok();
      },
      hint));
  QUARRY_RETURN_IF_ERROR(failed);
  QUARRY_RETURN_IF_ERROR(flush());
  for (int attempt = 0; !conflicts.empty(); ++attempt) {
    if (attempt == kMaxConflictRetries) return GaveUp();
    std::vector<bson::Document> again = std::exchange(conflicts, {});
    for (const bson::Document& id : again) {
      QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> current,
                              ReadById(ctx, collection, id.Get("_id")));
      --counts.matched;  // counted again below if it still matches
      query::MatchDetails details;
      if (!current.has_value()) continue;
      QUARRY_ASSIGN_OR_RETURN(bool matched, matcher.Evaluate(*current, &details));
      if (!matched) continue;
      QUARRY_RETURN_IF_ERROR(consider(*current, details));
    }
    QUARRY_RETURN_IF_ERROR(flush());
  }
  return counts;
}

StatusWith<std::optional<FirstMatch>> ChangeFirstMatch(
    const ExecContext& ctx, const Collection& collection, const query::Matcher& matcher,
    const query::SortSpec* sort, const Committer& commit, const ChangeFunction& change,
    const ResolvedHint& hint) {
  const storage::CommitPipeline* latest = ctx.reads_latest_of();
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    const std::uint64_t chunks = latest != nullptr ? latest->ChunksWritten() : 0;
    QUARRY_ASSIGN_OR_RETURN(auto target, FindTarget(ctx, collection, matcher, sort, hint));
    if (!target.has_value()) return std::optional<FirstMatch>();
    FirstMatch first{std::move(target->doc), false, target->text_score};
    storage::WriteUnit unit;
    if (latest != nullptr) unit.ReadAfter(chunks);
    QUARRY_ASSIGN_OR_RETURN(first.changed, change(first.doc, target->details, &unit));
    if (!first.changed) return std::optional<FirstMatch>(std::move(first));
    QUARRY_ASSIGN_OR_RETURN(storage::CommitResult result, commit(std::move(unit), true));
    if (result.errors.empty()) {
      QUARRY_RETURN_IF_ERROR(result.sync_status);
      return std::optional<FirstMatch>(std::move(first));
    }
    if (result.errors.front().status.code() != ErrorCode::kWriteConflict) {
      return result.errors.front().status;
    }
    ++ThisThreadWork().write_conflicts;
  }
  return GaveUp();
}

}  // namespace quarry::exec
