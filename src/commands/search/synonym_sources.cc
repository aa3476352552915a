#include "commands/search/synonym_sources.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/search/synonym_cache.h"
#include "storage/engine.h"
#include "storage/record_store.h"

namespace quarry::commands {
namespace {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

SynonymCache::Read ReadCollection(const SearchContext& ctx, const std::string& db,
                                  const text::FullTextMapping::SynonymSource& source,
                                  const catalog::CollectionInfo* info) {
  auto map = std::make_shared<text::SynonymMap>(source.analyzer);
  if (info == nullptr) return std::shared_ptr<const text::SynonymMap>(std::move(map));
  std::unique_ptr<storage::RecordCursor> cursor = ctx.engine->records().Scan(info->id);
  for (std::size_t steps = 0; cursor->Valid(); cursor->Next()) {
    if (ctx.interrupt != nullptr && ++steps % 1024 == 0) {
      QUARRY_RETURN_IF_ERROR(ctx.interrupt->Check());
    }
    const bson::DocumentView document = cursor->document();
    const Status added = map->Add(document);
    if (!added.ok()) {
      return Bad("synonym mapping \"" + source.name + "\" is invalid and cannot serve queries: " +
                 "the document with _id " + document.Get("_id").ToJson() + " in " + db + "." +
                 source.collection + ": " + std::string(added.reason()));
    }
  }
  QUARRY_RETURN_IF_ERROR(cursor->status());
  return std::shared_ptr<const text::SynonymMap>(std::move(map));
}

// The mapping `source` defines, as kept by the cache while its collection is unchanged.
SynonymCache::Read ReadMapping(const SearchContext& ctx, const std::string& db,
                               const text::FullTextMapping::SynonymSource& source) {
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(db, source.collection);
  auto read = [&] { return ReadCollection(ctx, db, source, info.get()); };
  if (ctx.synonyms == nullptr) return read();
  return ctx.synonyms->Get(db, source.collection, info != nullptr ? info->id : 0, source.name,
                           source.analyzer, read);
}

}  // namespace

StatusWith<text::SynonymMaps> ReadSynonyms(const SearchContext& ctx, const std::string& db,
                                           const text::FullTextMapping& mapping,
                                           const text::SearchOperator& op) {
  text::SynonymMaps out;
  for (const std::string& name : text::SynonymMappingsOf(op)) {
    const text::FullTextMapping::SynonymSource* source = nullptr;
    for (const auto& defined : mapping.synonyms) {
      if (defined.name == name) source = &defined;
    }
    if (source == nullptr) {
      return Bad("unknown synonym mapping name \"" + name + "\": the index defines " +
                 (mapping.synonyms.empty() ? std::string("none") : "only other ones"));
    }
    QUARRY_ASSIGN_OR_RETURN(out[name], ReadMapping(ctx, db, *source));
  }
  return out;
}

std::vector<std::pair<std::string, Status>> SynonymStatuses(const SearchContext& ctx,
                                                            const std::string& db,
                                                            const text::FullTextMapping& mapping) {
  std::vector<std::pair<std::string, Status>> out;
  for (const auto& source : mapping.synonyms) {
    out.emplace_back(source.name, ReadMapping(ctx, db, source).status());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace quarry::commands
