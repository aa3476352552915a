#include "commands/aggregate/index_stats.h"

#include "bson/builder.h"
#include "commands/execution.h"
#include "exec/index_usage.h"

namespace quarry::commands {

StatusWith<std::vector<bson::Document>> IndexStatsDocuments(CommandContext& ctx,
                                                            const std::string& db,
                                                            const std::string& coll,
                                                            bson::ValueView argument) {
  if (argument.type() != bson::Type::kDocument || !argument.Document().empty()) {
    return Status(static_cast<ErrorCode>(28803),
                  "The $indexStats stage specification must be an empty object");
  }
  std::vector<bson::Document> docs;
  QUARRY_ASSIGN_OR_RETURN(std::optional<exec::Collection> collection,
                          LookupCollection(ctx, db, coll));
  if (!collection.has_value()) return docs;
  const std::string host =
      ctx.service().host_name + ":" + std::to_string(ctx.service().config.port);
  for (const catalog::IndexInfo& index : collection->info->indexes) {
    const exec::IndexUsage usage =
        exec::IndexUsageOf(index.is_id_index() ? exec::IdIndexUsageKey(collection->id) : index.id);
    bson::DocumentBuilder b;
    b.AppendString("name", index.name());
    b.AppendDocument("key", index.key());
    b.AppendString("host", host);
    b.OpenDocument("accesses")
        .AppendInt64("ops", usage.ops)
        .AppendDate("since", usage.since_millis)
        .Close();
    b.AppendDocument("spec", index.spec.view());
    if (!index.ready) b.AppendBool("building", true);
    docs.push_back(std::move(b).Finish());
  }
  return docs;
}

}  // namespace quarry::commands
