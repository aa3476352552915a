// $search and $searchMeta: parse the options and the operator, evaluate the operator on the
// index's inverted index, then read the matching documents in batches as the stages after
// $search ask for them, or count them for $searchMeta.
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "auth/scram.h"
#include "bson/builder.h"
#include "bson/validate.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/search/search_indexes.h"
#include "commands/search/synonym_sources.h"
#include "commands/service_state.h"
#include "query/projection/projection.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "text/search_facets.h"
#include "text/search_highlights.h"
#include "text/search_operator.h"
#include "text/search_sort.h"
#include "vector/search_index_definition.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

// Documents read per FindByIdKeys: the first read is small, since a $limit after $search often
// wants only a few, and each next one doubles up to the largest, which bounds the memory of a
// search that matches many.
constexpr std::size_t kFirstFetch = 16;
constexpr std::size_t kLargestFetch = 256;

struct FullTextSearchSpec {
  std::string index = "default";
  text::SearchOperator op;   // unless `facet` holds it
  bool count_total = false;  // $searchMeta's count.type "total" (else "lowerBound")
  std::optional<text::HighlightSpec> highlight;
  std::shared_ptr<const text::SearchSort> sort;  // $search's; null: by score
  std::optional<text::FacetCollector> facet;     // $searchMeta's
  bool return_stored_source = false;
  // searchAfter and searchBefore: the rank their token holds.
  std::optional<vector::TextRank> after;
  std::optional<vector::TextRank> before;
};

// Which stage a spec is for: its options differ.
enum class SearchStage { kSearch, kSearchMeta };

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Status NotYet(std::string what) {
  return Status(ErrorCode::kNotImplemented, std::move(what) + " is not supported by Quarry yet");
}

Status MustBeBool(const bson::Element& e, const std::string& stage_name) {
  if (e.value.type() != bson::Type::kBool) {
    return Status(ErrorCode::kTypeMismatch,
                  stage_name + "." + std::string(e.key) + " must be a boolean");
  }
  return Status::OK();
}

// {$meta: "searchSequenceToken"}: a match's rank as a string that searchAfter and searchBefore
// take back; base64 of {k: <sort key>, s: <score>, l: <label>}.
std::string SequenceTokenOf(const vector::TextRank& rank) {
  bson::DocumentBuilder token;
  token.AppendDocument("k", rank.key.view());
  token.AppendDouble("s", rank.score);
  token.AppendInt64("l", rank.label);
  const bson::Document bytes = std::move(token).Finish();
  return auth::Base64Encode(bytes.view().bytes());
}

StatusWith<vector::TextRank> RankOfToken(const bson::Element& e, const std::string& stage_name) {
  if (e.value.type() != bson::Type::kString) {
    return Status(ErrorCode::kTypeMismatch,
                  stage_name + "." + std::string(e.key) +
                      " must be a string: a {$meta: \"searchSequenceToken\"} of an earlier search");
  }
  const Status invalid = Bad(stage_name + "." + std::string(e.key) +
                             " is not a token that {$meta: \"searchSequenceToken\"} gave");
  StatusWith<std::string> bytes = auth::Base64Decode(e.value.String());
  if (!bytes.ok() || !bson::Validate(bytes.value().data(), bytes.value().size()).ok()) {
    return invalid;
  }
  const bson::Document token(std::move(bytes).value());
  const bson::ValueView key = token.view().Get("k");
  const bson::ValueView score = token.view().Get("s");
  const bson::ValueView label = token.view().Get("l");
  if (key.type() != bson::Type::kDocument || score.type() != bson::Type::kDouble ||
      label.type() != bson::Type::kInt64 || label.Int64() < 0 ||
      label.Int64() > std::numeric_limits<std::uint32_t>::max()) {
    return invalid;
  }
  return vector::TextRank{.key = bson::Document::Copy(key.Document()),
                          .score = score.Double(),
                          .label = static_cast<std::uint32_t>(label.Int64())};
}

// count: {type: "total" | "lowerBound", threshold: <n>}; true for "total".
StatusWith<bool> CountTotal(bson::ValueView value) {
  if (value.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "$searchMeta.count must be a document");
  }
  bool total = false;
  for (const bson::Element& e : value.Document()) {
    if (e.key == "type") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "total" && e.value.String() != "lowerBound")) {
        return Bad("$searchMeta.count.type must be \"total\" or \"lowerBound\"");
      }
      total = e.value.String() == "total";
    } else if (e.key == "threshold") {
      // Counting stops being exact past it in Atlas; an exact count is a lower bound too.
      if (!e.value.IsNumber() || e.value.AsDouble() < 0) {
        return Bad("$searchMeta.count.threshold must be a non-negative number");
      }
    } else {
      return Bad("\"count." + std::string(e.key) + "\" is not a known option");
    }
  }
  return total;
}

StatusWith<FullTextSearchSpec> ParseSpec(bson::ValueView argument, SearchStage stage) {
  const std::string stage_name = stage == SearchStage::kSearch ? "$search" : "$searchMeta";
  if (argument.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, stage_name + " must be given a document");
  }
  FullTextSearchSpec spec;
  std::optional<std::string> operator_name;
  for (const bson::Element& e : argument.Document()) {
    if (e.key == "index") {
      if (e.value.type() != bson::Type::kString) {
        return Status(ErrorCode::kTypeMismatch, stage_name + ".index must be a string");
      }
      spec.index = std::string(e.value.String());
    } else if (text::IsSearchOperatorName(e.key)) {
      if (operator_name == "facet") {
        return Bad(stage_name + "'s facet holds its operator: move \"" + std::string(e.key) +
                   "\" into facet.operator");
      }
      if (operator_name.has_value()) {
        return Bad(stage_name + " takes one operator; found both \"" + *operator_name +
                   "\" and \"" + std::string(e.key) + "\" (combine them with compound)");
      }
      operator_name = std::string(e.key);
      QUARRY_ASSIGN_OR_RETURN(spec.op, text::ParseSearchOperator(e.key, e.value));
    } else if (stage == SearchStage::kSearch && e.key == "returnStoredSource") {
      QUARRY_RETURN_IF_ERROR(MustBeBool(e, stage_name));
      spec.return_stored_source = e.value.Bool();
    } else if (e.key == "returnStoredSource" || e.key == "scoreDetails") {
      QUARRY_RETURN_IF_ERROR(MustBeBool(e, stage_name));
      if (e.value.Bool()) return NotYet(stage_name + "." + std::string(e.key) + ": true");
    } else if (e.key == "concurrent") {
      // How Atlas spreads one query over threads; the answer is the same either way.
      QUARRY_RETURN_IF_ERROR(MustBeBool(e, stage_name));
    } else if (e.key == "tracking") {
      // Atlas's search analytics record the terms; nothing a client reads back changes.
      if (e.value.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kTypeMismatch, stage_name + ".tracking must be a document");
      }
    } else if (e.key == "count") {
      QUARRY_ASSIGN_OR_RETURN(spec.count_total, CountTotal(e.value));
    } else if (stage == SearchStage::kSearch && e.key == "highlight") {
      QUARRY_ASSIGN_OR_RETURN(spec.highlight, text::ParseHighlight(e.value));
    } else if (stage == SearchStage::kSearch && e.key == "sort") {
      QUARRY_ASSIGN_OR_RETURN(text::SearchSort sort, text::ParseSearchSort(e.value));
      spec.sort = std::make_shared<const text::SearchSort>(std::move(sort));
    } else if (e.key == "facet") {
      if (operator_name.has_value()) {
        return Bad(stage_name + "'s facet holds its operator: move \"" + *operator_name +
                   "\" into facet.operator");
      }
      operator_name = "facet";
      QUARRY_ASSIGN_OR_RETURN(spec.facet, text::ParseFacetCollector(e.value));
      if (stage == SearchStage::kSearch) {
        // $search returns the documents of the facet's operator.
        if (!spec.facet->op.has_value()) {
          return NotYet("$search.facet without an operator (every document of the index)");
        }
        spec.op = *spec.facet->op;
      }
    } else if (stage == SearchStage::kSearch &&
               (e.key == "searchAfter" || e.key == "searchBefore")) {
      QUARRY_ASSIGN_OR_RETURN(vector::TextRank rank, RankOfToken(e, stage_name));
      (e.key == "searchAfter" ? spec.after : spec.before) = std::move(rank);
    } else if (e.key == "searchAfter" || e.key == "searchBefore" || e.key == "returnScope") {
      return NotYet(stage_name + "." + std::string(e.key));
    } else if (e.key == "highlight" || e.key == "sort") {
      return Bad(std::string(e.key) + " is an option of $search, not of $searchMeta");
    } else {
      return Bad("\"" + std::string(e.key) + "\" is not a " + stage_name + " option or operator");
    }
  }
  if (spec.after.has_value() && spec.before.has_value()) {
    return Bad("$search takes searchAfter or searchBefore, not both");
  }
  if (!operator_name.has_value()) {
    return Bad(stage_name + " needs an operator (text, phrase or compound, for example)" +
               (stage == SearchStage::kSearchMeta ? " or a facet collector" : ""));
  }
  return spec;
}

// What a document's {$meta: "searchHighlights"} is made from.
struct Highlighting {
  text::SearchOperator op;
  text::FullTextMapping mapping;
  text::HighlightSpec spec;
};

// The matches in score order, each read from the records when the stages after $search reach
// it, with its score (and highlights, when asked for) as metadata. A record deleted since the
// search is skipped.
class SearchResults final : public query::DocumentStream {
 public:
  SearchResults(const storage::RecordStore* records, storage::CollectionId collection,
                vector::SearchIndexRegistry::TextMatches matches,
                std::optional<Highlighting> highlighting,
                std::optional<query::Projection> stored_source)
      : records_(records),
        collection_(collection),
        matches_(std::move(matches)),
        highlighting_(std::move(highlighting)),
        stored_source_(std::move(stored_source)) {}

  StatusWith<bool> Next(bson::Document* out) override {
    while (true) {
      if (next_in_batch_ < batch_.size()) {
        const vector::TextRank& rank = batch_matches_[next_in_batch_].rank;
        std::optional<bson::Document>& doc = batch_[next_in_batch_++];
        if (!doc.has_value()) continue;
        *out = std::move(*doc);
        metadata_.values["searchScore"] = query::Value::Double(rank.score);
        metadata_.values["searchSequenceToken"] = query::Value::String(SequenceTokenOf(rank));
        if (highlighting_.has_value()) {
          metadata_.values["searchHighlights"] = query::Value::FromArray(text::Highlights(
              highlighting_->op, highlighting_->mapping, highlighting_->spec, out->view()));
        }
        if (stored_source_.has_value()) {
          QUARRY_ASSIGN_OR_RETURN(*out, stored_source_->Apply(out->view()));
        }
        return true;
      }
      batch_matches_ = matches_.Next(fetch_);
      fetch_ = std::min(fetch_ * 2, kLargestFetch);
      if (batch_matches_.empty()) return false;
      std::vector<std::string> keys;
      keys.reserve(batch_matches_.size());
      for (const vector::TextMatch& match : batch_matches_) keys.push_back(match.id_key);
      QUARRY_ASSIGN_OR_RETURN(batch_, records_->FindByIdKeys(collection_, keys));
      next_in_batch_ = 0;
    }
  }
  const query::DocumentMetadata& metadata() const override { return metadata_; }

 private:
  const storage::RecordStore* records_;
  storage::CollectionId collection_;
  vector::SearchIndexRegistry::TextMatches matches_;
  std::size_t fetch_ = kFirstFetch;  // the next read's size
  std::vector<vector::TextMatch> batch_matches_;
  std::vector<std::optional<bson::Document>> batch_;  // batch_matches_' documents
  std::size_t next_in_batch_ = 0;
  std::optional<Highlighting> highlighting_;
  // returnStoredSource: the fields the index stores, as a projection.
  std::optional<query::Projection> stored_source_;
  query::DocumentMetadata metadata_;
};

}  // namespace

SearchContext SearchContextOf(CommandContext& ctx) {
  return SearchContext{.catalog = &ctx.catalog(),
                       .engine = &ctx.engine(),
                       .registry = ctx.service().search_indexes,
                       .synonyms = ctx.service().synonyms,
                       .interrupt = ctx.interrupt()};
}

namespace {

// The index `spec` names on db.coll, or null when there is none.
StatusWith<const catalog::SearchIndexInfo*> SearchIndexOf(const SearchContext& ctx,
                                                          const catalog::CollectionInfo* info,
                                                          const FullTextSearchSpec& spec,
                                                          std::string_view stage_name) {
  const catalog::SearchIndexInfo* index =
      info != nullptr ? info->FindSearchIndex(spec.index) : nullptr;
  if (index == nullptr || ctx.registry == nullptr) return nullptr;
  if (index->type != "search") {
    return Bad(std::string(stage_name) + " needs an index of type \"search\"; '" + spec.index +
               "' is of type \"" + index->type + "\" (search it with $vectorSearch)");
  }
  return index;
}

// Reads the synonym mappings `op` names from `db`, as the serving index defines them.
vector::SearchIndexRegistry::SynonymReader SynonymsOf(const SearchContext& ctx,
                                                      const std::string& db,
                                                      const text::SearchOperator& op) {
  return [&ctx, &db, &op](const text::FullTextMapping& mapping) -> StatusWith<text::SynonymMaps> {
    if (text::SynonymMappingsOf(op).empty()) return text::SynonymMaps();
    return ReadSynonyms(ctx, db, mapping, op);
  };
}

// The matches of `spec` on db.coll, in `order`; none without the index.
StatusWith<vector::SearchIndexRegistry::TextMatches> Matches(
    const SearchContext& ctx, const std::string& db, const catalog::CollectionInfo* info,
    const FullTextSearchSpec& spec, vector::TextOrder order, std::string_view stage_name) {
  QUARRY_ASSIGN_OR_RETURN(const catalog::SearchIndexInfo* index,
                          SearchIndexOf(ctx, info, spec, stage_name));
  if (index == nullptr) return vector::SearchIndexRegistry::TextMatches();
  const vector::SearchIndexRegistry::SynonymReader synonyms = SynonymsOf(ctx, db, spec.op);
  return ctx.registry->SearchText(info->id, index->id, spec.op, std::move(order),
                                  ctx.interrupt.get(), &synonyms);
}

}  // namespace

StatusWith<std::unique_ptr<query::DocumentStream>> FullTextSearchDocuments(
    const SearchContext& ctx, const std::string& db, const std::string& coll,
    bson::ValueView argument) {
  QUARRY_ASSIGN_OR_RETURN(FullTextSearchSpec spec, ParseSpec(argument, SearchStage::kSearch));
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(db, coll);
  // Highlights and stored fields read the index's definition, from the catalog snapshot that
  // finds the index for the matches.
  std::optional<vector::SearchIndexDefinition> definition;
  if (spec.highlight.has_value() || spec.return_stored_source || spec.facet.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(const catalog::SearchIndexInfo* index,
                            SearchIndexOf(ctx, info.get(), spec, "$search"));
    if (index != nullptr) {
      QUARRY_ASSIGN_OR_RETURN(definition,
                              vector::ParseSearchIndexDefinition(index->type, index->definition));
    }
  }
  // A facet the index cannot count is refused whether or not $$SEARCH_META is read.
  if (spec.facet.has_value() && definition.has_value() && definition->full_text.has_value()) {
    QUARRY_RETURN_IF_ERROR(text::CheckFacetsMapped(spec.facet->facets, *definition->full_text));
  }
  std::optional<query::Projection> stored_source;
  if (spec.return_stored_source && definition.has_value()) {
    if (!definition->stored_source.has_value()) {
      return Bad("returnStoredSource: true needs an index that stores fields; index '" +
                 spec.index + "' has no storedSource option");
    }
    QUARRY_ASSIGN_OR_RETURN(stored_source,
                            query::Projection::Parse(definition->stored_source->view()));
  }
  QUARRY_ASSIGN_OR_RETURN(vector::SearchIndexRegistry::TextMatches matches,
                          Matches(ctx, db, info.get(), spec,
                                  vector::TextOrder{.sort = spec.sort,
                                                    .after = std::move(spec.after),
                                                    .before = std::move(spec.before)},
                                  "$search"));
  if (matches.matched() == 0) return query::StreamOfDocuments({});
  std::optional<Highlighting> highlighting;
  if (spec.highlight.has_value()) {
    text::FullTextMapping mapping;
    if (definition.has_value() && definition->full_text.has_value()) {
      mapping = std::move(*definition->full_text);
    }
    highlighting = Highlighting{.op = std::move(spec.op),
                                .mapping = std::move(mapping),
                                .spec = std::move(*spec.highlight)};
  }
  return std::unique_ptr<query::DocumentStream>(
      std::make_unique<SearchResults>(&ctx.engine->records(), info->id, std::move(matches),
                                      std::move(highlighting), std::move(stored_source)));
}

namespace {

// {count: {total | lowerBound: N}} of `spec`'s matches on db.coll, and with a facet collector,
// facet: {<name>: {buckets: [...]}}.
StatusWith<bson::Document> MetaOf(const SearchContext& ctx, const std::string& db,
                                  const std::string& coll, const FullTextSearchSpec& spec) {
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(db, coll);
  std::size_t matched = 0;
  std::optional<bson::Document> facets;
  if (spec.facet.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(const catalog::SearchIndexInfo* index,
                            SearchIndexOf(ctx, info.get(), spec, "$searchMeta"));
    vector::SearchIndexRegistry::FacetCounts counts{
        .matched = 0, .facets = text::EmptyFacets(spec.facet->facets)};
    if (index != nullptr) {
      const text::SearchOperator* op = spec.facet->op.has_value() ? &*spec.facet->op : nullptr;
      std::optional<vector::SearchIndexRegistry::SynonymReader> synonyms;
      if (op != nullptr) synonyms = SynonymsOf(ctx, db, *op);
      QUARRY_ASSIGN_OR_RETURN(
          counts, ctx.registry->CountFacets(info->id, index->id, op, spec.facet->facets,
                                            ctx.interrupt.get(), synonyms ? &*synonyms : nullptr));
    }
    matched = counts.matched;
    facets = std::move(counts.facets);
  } else {
    // The count is of every match, whatever page searchAfter or searchBefore asks for.
    QUARRY_ASSIGN_OR_RETURN(vector::SearchIndexRegistry::TextMatches matches,
                            Matches(ctx, db, info.get(), spec, vector::TextOrder(), "$searchMeta"));
    matched = matches.matched();
  }
  bson::DocumentBuilder count;
  count.AppendInt64(spec.count_total ? "total" : "lowerBound", static_cast<std::int64_t>(matched));
  bson::DocumentBuilder out;
  out.AppendDocument("count", std::move(count).Finish().view());
  if (facets.has_value()) out.AppendDocument("facet", facets->view());
  return std::move(out).Finish();
}

}  // namespace

StatusWith<bson::Document> SearchMetaDocument(const SearchContext& ctx, const std::string& db,
                                              const std::string& coll, bson::ValueView argument) {
  QUARRY_ASSIGN_OR_RETURN(FullTextSearchSpec spec, ParseSpec(argument, SearchStage::kSearchMeta));
  return MetaOf(ctx, db, coll, spec);
}

StatusWith<bson::Document> SearchMetaOfSearch(const SearchContext& ctx, const std::string& db,
                                              const std::string& coll, bson::ValueView argument) {
  QUARRY_ASSIGN_OR_RETURN(FullTextSearchSpec spec, ParseSpec(argument, SearchStage::kSearch));
  return MetaOf(ctx, db, coll, spec);
}

StatusWith<std::unique_ptr<query::DocumentStream>> SearchStageDocuments(const SearchContext& ctx,
                                                                        const std::string& db,
                                                                        const std::string& coll,
                                                                        bson::DocumentView stage) {
  const std::string_view name = stage.FirstKey();
  if (name == "$search") return FullTextSearchDocuments(ctx, db, coll, stage.Get(name));
  if (name == "$searchMeta") {
    QUARRY_ASSIGN_OR_RETURN(bson::Document meta,
                            SearchMetaDocument(ctx, db, coll, stage.Get(name)));
    std::vector<bson::Document> docs;
    docs.push_back(std::move(meta));
    return query::StreamOfDocuments(std::move(docs));
  }
  if (name == "$vectorSearch") {
    return VectorSearchDocuments(ctx, db, coll, stage.Get(name), VectorSearchOutput::kDocuments);
  }
  return Status(ErrorCode::kInternalError, std::string(name) + " is not a search stage");
}

}  // namespace quarry::commands
