// createSearchIndexes, updateSearchIndex and dropSearchIndex: Atlas's search-index management.
// Definitions are kept in the collection's catalog entry; the indexes are built in memory
// (vector::SearchIndexRegistry) and $listSearchIndexes reports their state.
#include <string>
#include <vector>

#include "base/clock.h"
#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/search/search_indexes.h"
#include "commands/service_state.h"
#include "commands/views/view_resolution.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

Status NoCollection(const std::string& db, const std::string& coll) {
  return Status(ErrorCode::kNamespaceNotFound,
                "Collection '" + db + "." + coll + "' does not exist.");
}

struct NewSearchIndex {
  catalog::SearchIndexInfo info;
  vector::SearchIndexDefinition parsed;
};

StatusWith<NewSearchIndex> ParseNewIndex(bson::ValueView value, std::size_t position) {
  const std::string at = "indexes[" + std::to_string(position) + "]";
  if (value.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "\"" + at + "\" must be a document");
  }
  NewSearchIndex out;
  out.info.name = "default";
  out.info.type = "search";
  bool has_definition = false;
  for (const bson::Element& e : value.Document()) {
    if (e.key == "name" || e.key == "type") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Status(ErrorCode::kTypeMismatch,
                      "\"" + at + "." + std::string(e.key) + "\" must be a non-empty string");
      }
      (e.key == "name" ? out.info.name : out.info.type) = std::string(e.value.String());
    } else if (e.key == "definition") {
      if (e.value.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kTypeMismatch, "\"" + at + ".definition\" must be a document");
      }
      out.info.definition = bson::Document::Copy(e.value.Document());
      has_definition = true;
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '" + at + "." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (!has_definition) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '" + at + ".definition' is missing but a required field");
  }
  QUARRY_ASSIGN_OR_RETURN(out.parsed,
                          vector::ParseSearchIndexDefinition(out.info.type, out.info.definition));
  out.info.id = bson::ObjectId::Generate().ToHex();
  out.info.defined_ms = NowMillis();
  return out;
}

StatusWith<bson::Document> RunCreateSearchIndexes(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  bson::ValueView indexes = args.Raw("indexes");
  QUARRY_RETURN_IF_ERROR(args.Finish());
  if (indexes.type() != bson::Type::kArray) {
    return Status(ErrorCode::kTypeMismatch, "\"indexes\" must be an array");
  }
  std::vector<NewSearchIndex> created;
  std::size_t position = 0;
  for (const bson::Element& e : indexes.Document()) {
    QUARRY_ASSIGN_OR_RETURN(NewSearchIndex index, ParseNewIndex(e.value, position++));
    for (const NewSearchIndex& other : created) {
      if (other.info.name == index.info.name) {
        return Status(ErrorCode::kIndexAlreadyExists,
                      "Duplicate index name '" + index.info.name + "' in the request");
      }
    }
    created.push_back(std::move(index));
  }
  auto add = [&](catalog::CollectionInfo* info) -> Status {
    if (info->is_view()) return NotSupportedOnView(info->db, info->name);
    for (const NewSearchIndex& index : created) {
      if (info->FindSearchIndex(index.info.name) != nullptr) {
        return Status(ErrorCode::kIndexAlreadyExists,
                      "Index " + index.info.name + " already exists.");
      }
    }
    for (const NewSearchIndex& index : created) info->search_indexes.push_back(index.info);
    return Status::OK();
  };
  Status modified = ctx.catalog().ModifyCollection(request.db, coll, add, bson::DocumentView());
  if (modified.code() == ErrorCode::kNamespaceNotFound) return NoCollection(request.db, coll);
  QUARRY_RETURN_IF_ERROR(modified);
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(request.db, coll);
  bson::DocumentBuilder b;
  b.OpenArray("indexesCreated");
  for (std::size_t i = 0; i < created.size(); ++i) {
    if (info != nullptr && ctx.service().search_indexes != nullptr) {
      ctx.service().search_indexes->Define(info->id, info->uuid.view(), created[i].info.id,
                                           created[i].info.version, std::move(created[i].parsed));
    }
    b.OpenDocument(std::to_string(i));
    b.AppendString("id", created[i].info.id);
    b.AppendString("name", created[i].info.name);
    b.Close();
  }
  b.Close();
  return std::move(b).Finish();
}

// The index a name or id names: exactly one of the two (72 otherwise).
struct IndexSelector {
  std::string key;
  bool by_id = false;
};

StatusWith<IndexSelector> SelectIndex(RequestParser& args) {
  QUARRY_ASSIGN_OR_RETURN(std::string name, args.OptionalString("name", ""));
  QUARRY_ASSIGN_OR_RETURN(std::string id, args.OptionalString("id", ""));
  if (!name.empty() && !id.empty()) {
    return Status(ErrorCode::kInvalidOptions, "Cannot set both 'name' and 'id'.");
  }
  if (name.empty() && id.empty()) {
    return Status(ErrorCode::kInvalidOptions, "Must set either 'name' or 'id'.");
  }
  return IndexSelector{id.empty() ? name : id, !id.empty()};
}

Status IndexNotFound(const IndexSelector& selector) {
  return Status(ErrorCode::kIndexNotFound, std::string("Search index ") +
                                               (selector.by_id ? "with id '" : "named '") +
                                               selector.key + "' not found");
}

StatusWith<bson::Document> RunUpdateSearchIndex(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_ASSIGN_OR_RETURN(IndexSelector selector, SelectIndex(args));
  QUARRY_ASSIGN_OR_RETURN(bson::DocumentView definition, args.RequiredDocument("definition"));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  catalog::SearchIndexInfo updated;
  vector::SearchIndexDefinition parsed;
  auto update = [&](catalog::CollectionInfo* info) -> Status {
    if (info->is_view()) return NotSupportedOnView(info->db, info->name);
    for (catalog::SearchIndexInfo& index : info->search_indexes) {
      if ((selector.by_id ? index.id : index.name) != selector.key) continue;
      QUARRY_ASSIGN_OR_RETURN(parsed, vector::ParseSearchIndexDefinition(index.type, definition));
      index.definition = bson::Document::Copy(definition);
      index.version += 1;
      index.defined_ms = NowMillis();
      updated = index;
      return Status::OK();
    }
    return IndexNotFound(selector);
  };
  Status modified = ctx.catalog().ModifyCollection(request.db, coll, update, bson::DocumentView());
  if (modified.code() == ErrorCode::kNamespaceNotFound) return NoCollection(request.db, coll);
  QUARRY_RETURN_IF_ERROR(modified);
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(request.db, coll);
  if (info != nullptr && ctx.service().search_indexes != nullptr) {
    ctx.service().search_indexes->Define(info->id, info->uuid.view(), updated.id, updated.version,
                                         std::move(parsed));
  }
  return bson::Document();
}

StatusWith<bson::Document> RunDropSearchIndex(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  QUARRY_ASSIGN_OR_RETURN(IndexSelector selector, SelectIndex(args));
  QUARRY_RETURN_IF_ERROR(args.Finish());
  std::string dropped_id;
  auto drop = [&](catalog::CollectionInfo* info) -> Status {
    if (info->is_view()) return NotSupportedOnView(info->db, info->name);
    std::erase_if(info->search_indexes, [&](const catalog::SearchIndexInfo& index) {
      if ((selector.by_id ? index.id : index.name) != selector.key) return false;
      dropped_id = index.id;
      return true;
    });
    return Status::OK();
  };
  Status modified = ctx.catalog().ModifyCollection(request.db, coll, drop, bson::DocumentView());
  if (modified.code() == ErrorCode::kNamespaceNotFound) return NoCollection(request.db, coll);
  QUARRY_RETURN_IF_ERROR(modified);
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog().Find(request.db, coll);
  if (!dropped_id.empty() && info != nullptr && ctx.service().search_indexes != nullptr) {
    ctx.service().search_indexes->Drop(info->id, dropped_id);
  }
  return bson::Document();
}

}  // namespace

void RegisterSearchIndexCommands(CommandRegistry& registry) {
  registry.Add({.name = "createSearchIndexes",
                .flags = kChangesStoredData,
                .run = RunCreateSearchIndexes,
                .auth = OnNamespace({auth::ActionType::kCreateSearchIndexes})});
  registry.Add({.name = "updateSearchIndex",
                .flags = kChangesStoredData,
                .run = RunUpdateSearchIndex,
                .auth = OnNamespace({auth::ActionType::kUpdateSearchIndex})});
  registry.Add({.name = "dropSearchIndex",
                .flags = kChangesStoredData,
                .run = RunDropSearchIndex,
                .auth = OnNamespace({auth::ActionType::kDropSearchIndex})});
}

}  // namespace quarry::commands
