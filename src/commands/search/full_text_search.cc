// $search: parse its options and operator, evaluate the operator on the index's inverted index,
// then read the matching documents in batches as the stages after it ask for them.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/search/search_indexes.h"
#include "commands/service_state.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "text/search_operator.h"
#include "vector/search_index_definition.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

// Documents read per FindByIdKeys: bounds the memory of a search that matches many.
constexpr std::size_t kFetchBatch = 256;

struct FullTextSearchSpec {
  std::string index = "default";
  text::SearchOperator op;
  bool count_total = false;  // $searchMeta's count.type "total" (else "lowerBound")
};

// Which stage a spec is for: its options differ.
enum class SearchStage { kSearch, kSearchMeta };

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Status NotYet(std::string what) {
  return Status(ErrorCode::kNotImplemented, std::move(what) + " is not supported by Quarry yet");
}

Status MustBeBool(const bson::Element& e) {
  if (e.value.type() != bson::Type::kBool) {
    return Status(ErrorCode::kTypeMismatch, "$search." + std::string(e.key) + " must be a boolean");
  }
  return Status::OK();
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
        return Status(ErrorCode::kTypeMismatch, "$search.index must be a string");
      }
      spec.index = std::string(e.value.String());
    } else if (text::IsSearchOperatorName(e.key)) {
      if (operator_name.has_value()) {
        return Bad("$search takes one operator; found both \"" + *operator_name + "\" and \"" +
                   std::string(e.key) + "\" (combine them with compound)");
      }
      operator_name = std::string(e.key);
      QUARRY_ASSIGN_OR_RETURN(spec.op, text::ParseSearchOperator(e.key, e.value));
    } else if (e.key == "returnStoredSource" || e.key == "scoreDetails") {
      QUARRY_RETURN_IF_ERROR(MustBeBool(e));
      if (e.value.Bool()) return NotYet("$search." + std::string(e.key) + ": true");
    } else if (e.key == "concurrent") {
      // How Atlas spreads one query over threads; the answer is the same either way.
      QUARRY_RETURN_IF_ERROR(MustBeBool(e));
    } else if (e.key == "tracking") {
      // Atlas's search analytics record the terms; nothing a client reads back changes.
      if (e.value.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kTypeMismatch, "$search.tracking must be a document");
      }
    } else if (stage == SearchStage::kSearchMeta && e.key == "count") {
      QUARRY_ASSIGN_OR_RETURN(spec.count_total, CountTotal(e.value));
    } else if (e.key == "highlight" || e.key == "count" || e.key == "sort" ||
               e.key == "searchAfter" || e.key == "searchBefore" || e.key == "returnScope" ||
               (stage == SearchStage::kSearchMeta && e.key == "facet")) {
      return NotYet(stage_name + "." + std::string(e.key));
    } else if (e.key == "facet") {
      return Bad("facet is an option of $searchMeta, not of $search");
    } else {
      return Bad("\"" + std::string(e.key) + "\" is not a " + stage_name + " option or operator");
    }
  }
  if (!operator_name.has_value()) {
    return Bad(stage_name + " needs an operator (text, phrase or compound, for example)");
  }
  return spec;
}

// The matches in score order, each read from the records when the stages after $search reach
// it, with its score as metadata. A record deleted since the search is skipped.
class SearchResults final : public query::DocumentStream {
 public:
  SearchResults(const storage::RecordStore* records, storage::CollectionId collection,
                std::vector<vector::SearchMatch> matches)
      : records_(records), collection_(collection), matches_(std::move(matches)) {}

  StatusWith<bool> Next(bson::Document* out) override {
    while (true) {
      if (next_in_batch_ < batch_.size()) {
        const std::size_t k = batch_start_ + next_in_batch_;
        std::optional<bson::Document>& doc = batch_[next_in_batch_++];
        if (!doc.has_value()) continue;
        *out = std::move(*doc);
        metadata_.values["searchScore"] = query::Value::Double(matches_[k].score);
        return true;
      }
      if (fetched_ >= matches_.size()) return false;
      std::vector<std::string> keys;
      const std::size_t end = std::min(matches_.size(), fetched_ + kFetchBatch);
      for (std::size_t k = fetched_; k < end; ++k) keys.push_back(matches_[k].id_key);
      QUARRY_ASSIGN_OR_RETURN(batch_, records_->FindByIdKeys(collection_, keys));
      batch_start_ = fetched_;
      next_in_batch_ = 0;
      fetched_ = end;
    }
  }
  const query::DocumentMetadata& metadata() const override { return metadata_; }

 private:
  const storage::RecordStore* records_;
  storage::CollectionId collection_;
  std::vector<vector::SearchMatch> matches_;
  std::vector<std::optional<bson::Document>> batch_;
  std::size_t batch_start_ = 0;
  std::size_t next_in_batch_ = 0;
  std::size_t fetched_ = 0;
  query::DocumentMetadata metadata_;
};

}  // namespace

SearchContext SearchContextOf(CommandContext& ctx) {
  return SearchContext{
      .catalog = &ctx.catalog(), .engine = &ctx.engine(), .registry = ctx.service().search_indexes};
}

namespace {

// The matches of `spec` on db.coll, best first; none without the index.
StatusWith<std::vector<vector::SearchMatch>> Matches(const SearchContext& ctx,
                                                     const catalog::CollectionInfo* info,
                                                     const FullTextSearchSpec& spec,
                                                     std::string_view stage_name) {
  const catalog::SearchIndexInfo* index =
      info != nullptr ? info->FindSearchIndex(spec.index) : nullptr;
  if (index == nullptr || ctx.registry == nullptr) return std::vector<vector::SearchMatch>();
  if (index->type != "search") {
    return Bad(std::string(stage_name) + " needs an index of type \"search\"; '" + spec.index +
               "' is of type \"" + index->type + "\" (search it with $vectorSearch)");
  }
  return ctx.registry->SearchText(info->id, index->id, spec.op);
}

}  // namespace

StatusWith<std::unique_ptr<query::DocumentStream>> FullTextSearchDocuments(
    const SearchContext& ctx, const std::string& db, const std::string& coll,
    bson::ValueView argument) {
  QUARRY_ASSIGN_OR_RETURN(FullTextSearchSpec spec, ParseSpec(argument, SearchStage::kSearch));
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(db, coll);
  QUARRY_ASSIGN_OR_RETURN(std::vector<vector::SearchMatch> matches,
                          Matches(ctx, info.get(), spec, "$search"));
  if (matches.empty()) return query::StreamOfDocuments({});
  return std::unique_ptr<query::DocumentStream>(
      std::make_unique<SearchResults>(&ctx.engine->records(), info->id, std::move(matches)));
}

StatusWith<bson::Document> SearchMetaDocument(const SearchContext& ctx, const std::string& db,
                                              const std::string& coll, bson::ValueView argument) {
  QUARRY_ASSIGN_OR_RETURN(FullTextSearchSpec spec, ParseSpec(argument, SearchStage::kSearchMeta));
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(db, coll);
  QUARRY_ASSIGN_OR_RETURN(std::vector<vector::SearchMatch> matches,
                          Matches(ctx, info.get(), spec, "$searchMeta"));
  bson::DocumentBuilder count;
  count.AppendInt64(spec.count_total ? "total" : "lowerBound",
                    static_cast<std::int64_t>(matches.size()));
  bson::DocumentBuilder out;
  out.AppendDocument("count", std::move(count).Finish().view());
  return std::move(out).Finish();
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
