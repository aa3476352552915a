// The aggregation source stages of Atlas search: $listSearchIndexes, $vectorSearch and $search.
// Each must be a pipeline's first stage (a $unionWith sub-pipeline's too, for the searches);
// its documents become the input of the stages after it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"
#include "query/pipeline/pipeline.h"

namespace quarry::vector {
class SearchIndexRegistry;
}

namespace quarry::commands {

class SynonymCache;  // synonym_cache.h

// What a search reads, held by value so that a search opened later (a $unionWith's, during a
// getMore) does not need the command's context.
struct SearchContext {
  catalog::Catalog* catalog = nullptr;
  storage::Engine* engine = nullptr;
  vector::SearchIndexRegistry* registry = nullptr;  // null: no search index answers
  SynonymCache* synonyms = nullptr;                 // null: every search reads its mappings
  std::shared_ptr<const Interrupt> interrupt;       // the operation's (null: none)
};
SearchContext SearchContextOf(CommandContext& ctx);

// Checks $listSearchIndexes' argument ({}, {name} or {id}) and returns one document per search
// index of db.coll: {id, name, type, status, queryable, latestDefinitionVersion,
// latestDefinition, statusDetail}. None when the collection does not exist.
StatusWith<std::vector<bson::Document>> ListSearchIndexesDocuments(CommandContext& ctx,
                                                                   const std::string& db,
                                                                   const std::string& coll,
                                                                   bson::ValueView argument);

// What $vectorSearch hands to the stages after it: the stored documents, or only {_id} when
// those stages need nothing else (IdsAreEnough).
enum class VectorSearchOutput { kDocuments, kIdsOnly };

// Whether `later_stages` (the pipeline after $vectorSearch) need nothing of a match but its
// _id and score: they start with a $project that keeps only _id (or parts of it) and
// {$meta: "vectorSearchScore"} fields. Such a search is answered from the index alone, as a
// covered query is, without reading the documents.
bool IdsAreEnough(bson::DocumentView later_stages);

// Parses $vectorSearch's argument and runs it on db.coll: the stored documents nearest to the
// query vector (or their {_id} only, per `output`), best first, each with
// {$meta: "vectorSearchScore"}. An unknown index or a missing collection gives no documents, as
// Atlas does.
StatusWith<std::unique_ptr<query::DocumentStream>> VectorSearchDocuments(const SearchContext& ctx,
                                                                         const std::string& db,
                                                                         const std::string& coll,
                                                                         bson::ValueView argument,
                                                                         VectorSearchOutput output);

// Parses $search's argument and runs it on db.coll: every stored document its operator matches,
// best first or in its sort's order, each with {$meta: "searchScore"} (and
// {$meta: "searchHighlights"} when asked for). An unknown index or a missing collection gives
// no documents, as Atlas does; options Quarry does not have yet (searchAfter, ...) answer
// NotImplemented.
StatusWith<std::unique_ptr<query::DocumentStream>> FullTextSearchDocuments(
    const SearchContext& ctx, const std::string& db, const std::string& coll,
    bson::ValueView argument);

// Parses $searchMeta's argument and counts the documents its operator matches on db.coll:
// {count: {total: N}} for count.type "total", else {count: {lowerBound: N}} (an exact count,
// which is a lower bound too); with a facet collector, also facet: {<name>: {buckets}}.
StatusWith<bson::Document> SearchMetaDocument(const SearchContext& ctx, const std::string& db,
                                              const std::string& coll, bson::ValueView argument);

// What $$SEARCH_META holds after the $search `argument`: SearchMetaDocument of its count and
// facet options.
StatusWith<bson::Document> SearchMetaOfSearch(const SearchContext& ctx, const std::string& db,
                                              const std::string& coll, bson::ValueView argument);

// Runs the search stage `stage` ({$search: ...}, {$searchMeta: ...} or {$vectorSearch: ...})
// on db.coll: the first stage of a $unionWith's sub-pipeline.
StatusWith<std::unique_ptr<query::DocumentStream>> SearchStageDocuments(const SearchContext& ctx,
                                                                        const std::string& db,
                                                                        const std::string& coll,
                                                                        bson::DocumentView stage);

}  // namespace quarry::commands
