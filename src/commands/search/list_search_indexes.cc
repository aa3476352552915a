#include <algorithm>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/search/search_indexes.h"
#include "commands/search/synonym_sources.h"
#include "commands/service_state.h"
#include "vector/search_index_definition.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

void AppendVersion(bson::DocumentBuilder& b, std::string_view key,
                   const catalog::SearchIndexInfo& index) {
  b.OpenDocument(key);
  b.AppendInt32("version", index.version);
  b.AppendDate("createdAt", index.defined_ms);
  b.Close();
}

// synonymMappingStatus (FAILED when a mapping cannot serve queries, else READY) and one
// {status, queryable, message} per mapping, in name order, as Atlas lists them.
void AppendSynonymStatuses(bson::DocumentBuilder& b,
                           const std::vector<std::pair<std::string, Status>>& statuses) {
  if (statuses.empty()) return;
  const bool all_ready =
      std::all_of(statuses.begin(), statuses.end(), [](const auto& s) { return s.second.ok(); });
  b.AppendString("synonymMappingStatus", all_ready ? "READY" : "FAILED");
  b.OpenArray("synonymMappingStatusDetail");
  std::size_t i = 0;
  for (const auto& [name, status] : statuses) {
    b.OpenDocument(std::to_string(i++));
    b.AppendString("status", status.ok() ? "READY" : "FAILED");
    b.AppendBool("queryable", status.ok());
    if (!status.ok()) b.AppendString("message", status.reason());
    b.Close();
  }
  b.Close();
}

bson::Document Describe(const catalog::SearchIndexInfo& index,
                        const vector::SearchIndexState& state,
                        const std::vector<std::pair<std::string, Status>>& synonyms) {
  const char* status = vector::BuildStatusName(state.status);
  bson::DocumentBuilder b;
  b.AppendString("id", index.id);
  b.AppendString("name", index.name);
  b.AppendString("type", index.type);
  b.AppendString("status", status);
  b.AppendBool("queryable", state.queryable);
  if (!state.message.empty()) b.AppendString("message", state.message);
  AppendVersion(b, "latestDefinitionVersion", index);
  b.AppendDocument("latestDefinition", index.definition);
  // One search host: this server.
  b.OpenArray("statusDetail");
  b.OpenDocument("0");
  b.AppendString("hostname", "localhost");
  b.AppendString("status", status);
  b.AppendBool("queryable", state.queryable);
  b.OpenDocument("mainIndex");
  b.AppendString("status", status);
  b.AppendBool("queryable", state.queryable);
  AppendVersion(b, "definitionVersion", index);
  b.AppendDocument("definition", index.definition);
  b.Close();
  b.Close();
  b.Close();
  AppendSynonymStatuses(b, synonyms);
  return std::move(b).Finish();
}

}  // namespace

StatusWith<std::vector<bson::Document>> ListSearchIndexesDocuments(CommandContext& ctx,
                                                                   const std::string& db,
                                                                   const std::string& coll,
                                                                   bson::ValueView argument) {
  if (argument.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "$listSearchIndexes must be given a document: {}, {name} or {id}");
  }
  std::string name, id;
  for (const bson::Element& e : argument.Document()) {
    if ((e.key != "name" && e.key != "id") || e.value.type() != bson::Type::kString) {
      return Status(ErrorCode::kBadValue,
                    "$listSearchIndexes takes only a string 'name' or a string 'id'");
    }
    (e.key == "name" ? name : id) = std::string(e.value.String());
  }
  if (!name.empty() && !id.empty()) {
    return Status(ErrorCode::kInvalidOptions, "Cannot set both 'name' and 'id'.");
  }
  std::vector<bson::Document> docs;
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(db, coll);
  if (info == nullptr) return docs;
  for (const catalog::SearchIndexInfo& index : info->search_indexes) {
    if ((!name.empty() && index.name != name) || (!id.empty() && index.id != id)) continue;
    vector::SearchIndexState state;
    if (ctx.service().search_indexes != nullptr) {
      state = ctx.service().search_indexes->State(info->id, index.id);
    }
    std::vector<std::pair<std::string, Status>> synonyms;
    if (index.type == "search") {
      StatusWith<vector::SearchIndexDefinition> definition =
          vector::ParseSearchIndexDefinition(index.type, index.definition);
      if (definition.ok() && definition.value().full_text.has_value()) {
        synonyms = SynonymStatuses(SearchContextOf(ctx), db, *definition.value().full_text);
      }
    }
    docs.push_back(Describe(index, state, synonyms));
  }
  return docs;
}

}  // namespace quarry::commands
