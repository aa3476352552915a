#include "exec/ttl.h"

#include <cmath>
#include <optional>
#include <string>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "exec/collection.h"
#include "exec/write_matches.h"
#include "query/match/matcher.h"

namespace quarry::exec {
namespace {

// expireAfterSeconds of a TTL index on one field other than _id; nullopt for any other index.
std::optional<std::int64_t> ExpireAfterSeconds(const catalog::IndexInfo& index) {
  bson::ValueView expire = index.spec.Get("expireAfterSeconds");
  if (!expire.IsNumber() || index.is_id_index() || index.key().CountElements() != 1) {
    return std::nullopt;
  }
  const double seconds = expire.AsDouble();
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  return static_cast<std::int64_t>(seconds);
}

// {<field>: {$lt: <cutoff>}} and the partial filter: a range over dates only, since $lt
// compares within a type, and on an array any element below the cutoff matches, so the earliest
// date decides, as mongod's TTL rules say.
StatusWith<query::Matcher> ExpiredFilter(const catalog::IndexInfo& index,
                                         std::int64_t cutoff_millis) {
  bson::DocumentBuilder b;
  b.OpenArray("$and");
  b.OpenDocument("0")
      .OpenDocument(index.key().FirstKey())
      .AppendDate("$lt", cutoff_millis)
      .Close()
      .Close();
  bson::ValueView partial = index.spec.Get("partialFilterExpression");
  if (partial.type() == bson::Type::kDocument) b.AppendDocument("1", partial.Document());
  b.Close();
  const bson::Document filter = std::move(b).Finish();
  return query::Matcher::Parse(filter);
}

StatusWith<std::int64_t> DeleteExpiredFrom(const ExecContext& ctx, const Committer& commit,
                                           const Collection& collection,
                                           const catalog::IndexInfo& index, std::int64_t expire,
                                           std::int64_t now_millis) {
  QUARRY_ASSIGN_OR_RETURN(query::Matcher matcher, ExpiredFilter(index, now_millis - expire * 1000));
  // The TTL index reads only the expired range, hidden or not, as mongod's monitor does.
  const ResolvedHint through_index{.index = &index};
  auto delete_it = [&collection](bson::DocumentView doc, const query::MatchDetails&,
                                 storage::WriteUnit* unit) -> StatusWith<bool> {
    unit->Delete(collection.ref(), doc);
    return true;
  };
  QUARRY_ASSIGN_OR_RETURN(MatchCounts counts, ChangeEveryMatch(ctx, collection, matcher, commit,
                                                               delete_it, through_index));
  return counts.changed;
}

}  // namespace

TtlCounters& GlobalTtlCounters() {
  static TtlCounters counters;
  return counters;
}

StatusWith<std::int64_t> DeleteExpiredDocuments(const ExecContext& ctx, const Committer& commit,
                                                std::chrono::system_clock::time_point now) {
  const std::int64_t now_millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::int64_t deleted = 0;
  for (const std::string& db : ctx.catalog->DatabaseNames()) {
    for (const auto& info : ctx.catalog->ListCollections(db)) {
      std::optional<Collection> collection = LookupCollection(*ctx.catalog, db, info->name);
      if (!collection.has_value()) continue;  // dropped since the listing
      for (const catalog::IndexInfo& index : collection->info->indexes) {
        std::optional<std::int64_t> expire = ExpireAfterSeconds(index);
        if (!expire.has_value() || !index.ready) continue;
        StatusWith<std::int64_t> removed =
            DeleteExpiredFrom(ctx, commit, *collection, index, *expire, now_millis);
        if (!removed.ok()) {
          // A drop of the collection or index in the middle of the pass ends its deletes only.
          if (LookupCollection(*ctx.catalog, db, info->name).has_value()) return removed.status();
          break;
        }
        deleted += removed.value();
      }
    }
  }
  TtlCounters& counters = GlobalTtlCounters();
  counters.passes.fetch_add(1, std::memory_order_relaxed);
  counters.deleted_documents.fetch_add(deleted, std::memory_order_relaxed);
  return deleted;
}

}  // namespace quarry::exec
