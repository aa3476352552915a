// $vectorSearch: parse, check against the index's definition, search, then fetch the documents
// (unless the stages after it need only _id and the score).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/search/search_indexes.h"
#include "commands/search/vector_search_filter.h"
#include "commands/service_state.h"
#include "exec/covered_read.h"
#include "query/match/matcher.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "vector/document_vectors.h"
#include "vector/search_index_registry.h"

namespace quarry::commands {
namespace {

constexpr std::int64_t kMaxCandidates = 10000;

struct VectorSearchSpec {
  std::string index = "default";
  std::string path;
  std::vector<float> query_vector;
  bool packed_bits = false;  // queryVector is an int1 vector
  std::int64_t limit = 0;
  std::optional<std::int64_t> num_candidates;
  bool exact = false;
  std::optional<bson::DocumentView> filter;
  std::optional<bson::DocumentView> parent_filter;
  std::optional<bool> average_score;  // nestedOptions.scoreMode "avg" (true) or "max"
};

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

StatusWith<std::int64_t> WholeNumber(bson::ValueView value, std::string_view field) {
  if (value.IsNumber() && value.type() != bson::Type::kDecimal128) {
    const double d = value.AsDouble();
    if (std::isfinite(d) && std::floor(d) == d) return value.AsInt64();
  }
  return Status(ErrorCode::kTypeMismatch,
                "$vectorSearch." + std::string(field) + " must be an integer");
}

StatusWith<std::vector<float>> QueryVector(bson::ValueView value) {
  const vector::VectorForm form = vector::FormOf(value);
  if (form == vector::VectorForm::kNotAVector) {
    return Status(ErrorCode::kTypeMismatch,
                  "$vectorSearch.queryVector must be an array of numbers or a BinData vector");
  }
  std::optional<std::vector<float>> vector = vector::VectorOf(value);
  if (!vector.has_value()) {
    return Status(ErrorCode::kTypeMismatch,
                  "$vectorSearch.queryVector must hold finite numbers and not be empty");
  }
  return std::move(*vector);
}

// nestedOptions: {scoreMode: "max" | "avg"}; true for "avg".
StatusWith<bool> AverageScore(bson::ValueView value) {
  if (value.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "$vectorSearch.nestedOptions must be a document");
  }
  bool average = false;
  for (const bson::Element& e : value.Document()) {
    if (e.key != "scoreMode") {
      return Status(ErrorCode::kLocation40415, "BSON field '$vectorSearch.nestedOptions." +
                                                   std::string(e.key) + "' is an unknown field.");
    }
    if (e.value.type() != bson::Type::kString ||
        (e.value.String() != "max" && e.value.String() != "avg")) {
      return Bad("$vectorSearch.nestedOptions.scoreMode must be \"max\" or \"avg\"");
    }
    average = e.value.String() == "avg";
  }
  return average;
}

StatusWith<VectorSearchSpec> ParseSpec(bson::ValueView argument) {
  if (argument.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "$vectorSearch must be given a document");
  }
  VectorSearchSpec spec;
  bool has_limit = false, has_vector = false;
  for (const bson::Element& e : argument.Document()) {
    if (e.key == "index" || e.key == "path") {
      if (e.value.type() != bson::Type::kString) {
        return Status(ErrorCode::kTypeMismatch,
                      "$vectorSearch." + std::string(e.key) + " must be a string");
      }
      (e.key == "index" ? spec.index : spec.path) = std::string(e.value.String());
    } else if (e.key == "queryVector") {
      QUARRY_ASSIGN_OR_RETURN(spec.query_vector, QueryVector(e.value));
      spec.packed_bits = vector::FormOf(e.value) == vector::VectorForm::kPackedBits;
      has_vector = true;
    } else if (e.key == "limit") {
      QUARRY_ASSIGN_OR_RETURN(spec.limit, WholeNumber(e.value, "limit"));
      has_limit = true;
    } else if (e.key == "numCandidates") {
      QUARRY_ASSIGN_OR_RETURN(spec.num_candidates, WholeNumber(e.value, "numCandidates"));
    } else if (e.key == "exact") {
      if (e.value.type() != bson::Type::kBool) {
        return Status(ErrorCode::kTypeMismatch, "$vectorSearch.exact must be a boolean");
      }
      spec.exact = e.value.Bool();
    } else if (e.key == "filter" || e.key == "parentFilter") {
      if (e.value.type() != bson::Type::kDocument) {
        return Status(ErrorCode::kTypeMismatch,
                      "$vectorSearch." + std::string(e.key) + " must be a document");
      }
      (e.key == "filter" ? spec.filter : spec.parent_filter) = e.value.Document();
    } else if (e.key == "nestedOptions") {
      QUARRY_ASSIGN_OR_RETURN(spec.average_score, AverageScore(e.value));
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '$vectorSearch." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (spec.path.empty()) return Bad("$vectorSearch.path is required");
  if (!has_vector) return Bad("$vectorSearch.queryVector is required");
  if (!has_limit) return Bad("$vectorSearch.limit is required");
  if (spec.limit <= 0) {
    return Status(static_cast<ErrorCode>(7912700), "$vectorSearch limit must be positive");
  }
  if (spec.exact) {
    if (spec.num_candidates.has_value()) {
      return Bad("$vectorSearch.numCandidates is not allowed with exact: true");
    }
  } else {
    if (!spec.num_candidates.has_value()) {
      return Bad("$vectorSearch.numCandidates is required for approximate vector search");
    }
    if (*spec.num_candidates > kMaxCandidates) {
      return Bad("$vectorSearch.numCandidates must be at most 10000");
    }
    if (*spec.num_candidates < spec.limit) {
      return Bad("$vectorSearch.numCandidates must be greater than or equal to limit");
    }
  }
  return spec;
}

// Atlas indexes int1 vectors only for euclidean similarity, so an int1 query of another field
// could never match.
Status CheckVectorForm(const VectorSearchSpec& spec, const vector::VectorFieldDefinition& field) {
  if (spec.packed_bits && field.similarity != "euclidean") {
    return Bad("an int1 queryVector needs the index field '" + spec.path +
               "' to use euclidean similarity, not " + field.similarity);
  }
  return Status::OK();
}

// The documents in score order, each with its score as metadata.
class ScoredDocuments final : public query::DocumentStream {
 public:
  explicit ScoredDocuments(std::vector<std::pair<bson::Document, double>> docs)
      : docs_(std::move(docs)) {}
  StatusWith<bool> Next(bson::Document* out) override {
    if (next_ >= docs_.size()) return false;
    *out = std::move(docs_[next_].first);
    metadata_.values["vectorSearchScore"] = query::Value::Double(docs_[next_].second);
    ++next_;
    return true;
  }
  const query::DocumentMetadata& metadata() const override { return metadata_; }

 private:
  std::vector<std::pair<bson::Document, double>> docs_;
  std::size_t next_ = 0;
  query::DocumentMetadata metadata_;
};

}  // namespace

bool IdsAreEnough(bson::DocumentView later_stages) {
  const bson::ValueView first = later_stages.Get("0");
  if (first.type() != bson::Type::kDocument) return false;
  const bson::ValueView project = first.Document().Get("$project");
  if (project.type() != bson::Type::kDocument) return false;
  // Read as a plain inclusion projection, with each score field included like a stored one: it
  // then keeps only _id paths and score fields, or it needs the documents.
  bson::DocumentBuilder as_inclusion;
  std::vector<std::string_view> scores;
  for (const bson::Element& field : project.Document()) {
    const bool score =
        field.value.type() == bson::Type::kDocument &&
        std::distance(field.value.Document().begin(), field.value.Document().end()) == 1 &&
        field.value.Document().Get("$meta").type() == bson::Type::kString &&
        field.value.Document().Get("$meta").String() == "vectorSearchScore";
    if (score) {
      as_inclusion.AppendInt32(field.key, 1);
      scores.push_back(field.key);
    } else {
      as_inclusion.Append(field.key, field.value);
    }
  }
  const bson::Document inclusion = std::move(as_inclusion).Finish();
  const std::optional<std::vector<std::string>> paths = exec::InclusionPaths(inclusion.view());
  return paths.has_value() && std::ranges::all_of(*paths, [&](const std::string& path) {
           return path == "_id" || path.starts_with("_id.") ||
                  std::ranges::find(scores, path) != scores.end();
         });
}

StatusWith<std::unique_ptr<query::DocumentStream>> VectorSearchDocuments(
    const SearchContext& ctx, const std::string& db, const std::string& coll,
    bson::ValueView argument, VectorSearchOutput output) {
  QUARRY_ASSIGN_OR_RETURN(VectorSearchSpec spec, ParseSpec(argument));
  std::vector<std::pair<bson::Document, double>> found;
  std::shared_ptr<const catalog::CollectionInfo> info = ctx.catalog->Find(db, coll);
  const catalog::SearchIndexInfo* index =
      info != nullptr ? info->FindSearchIndex(spec.index) : nullptr;
  vector::SearchIndexRegistry* registry = ctx.registry;
  if (index == nullptr || registry == nullptr) {
    return std::unique_ptr<query::DocumentStream>(
        std::make_unique<ScoredDocuments>(std::move(found)));
  }
  QUARRY_ASSIGN_OR_RETURN(vector::SearchIndexDefinition definition,
                          vector::ParseSearchIndexDefinition(index->type, index->definition));
  const vector::VectorFieldDefinition* field = definition.FindVector(spec.path);
  if (field == nullptr) {
    return Bad("Path '" + spec.path + "' needs to be indexed as vector in index '" + spec.index +
               "'");
  }
  if (spec.query_vector.size() != field->dimensions) {
    return Bad("queryVector has " + std::to_string(spec.query_vector.size()) +
               " dimensions but the index field '" + spec.path + "' has " +
               std::to_string(field->dimensions));
  }
  QUARRY_RETURN_IF_ERROR(CheckVectorForm(spec, *field));
  const bool nested = !definition.nested_root.empty();
  if (!nested && (spec.parent_filter.has_value() || spec.average_score.has_value())) {
    return Bad(std::string("$vectorSearch.") +
               (spec.parent_filter.has_value() ? "parentFilter" : "nestedOptions") +
               " needs an index with a nestedRoot; index '" + spec.index + "' has none");
  }
  std::optional<query::Matcher> filter, parent_filter;
  if (spec.filter.has_value()) {
    QUARRY_RETURN_IF_ERROR(CheckVectorSearchFilter(
        *spec.filter, definition, nested ? FilterScope::kElements : FilterScope::kAll));
    QUARRY_ASSIGN_OR_RETURN(filter, query::Matcher::Parse(*spec.filter));
  }
  if (spec.parent_filter.has_value()) {
    QUARRY_RETURN_IF_ERROR(
        CheckVectorSearchFilter(*spec.parent_filter, definition, FilterScope::kParent));
    QUARRY_ASSIGN_OR_RETURN(parent_filter, query::Matcher::Parse(*spec.parent_filter));
  }
  vector::VectorQuery query;
  query.index_id = index->id;
  query.path = spec.path;
  query.vector = std::move(spec.query_vector);
  query.packed_bits = spec.packed_bits;
  query.limit = static_cast<std::size_t>(spec.limit);
  query.num_candidates = static_cast<std::size_t>(spec.num_candidates.value_or(spec.limit));
  query.exact = spec.exact;
  query.filter = filter.has_value() ? &*filter : nullptr;
  if (spec.filter.has_value()) query.filter_document = *spec.filter;
  query.parent_filter = parent_filter.has_value() ? &*parent_filter : nullptr;
  query.average_score = spec.average_score.value_or(false);
  QUARRY_ASSIGN_OR_RETURN(std::vector<vector::SearchMatch> matches,
                          registry->Search(info->id, query));
  if (output == VectorSearchOutput::kIdsOnly) {
    // The index holds the matches as of its search; each record's _id never changes.
    for (vector::SearchMatch& match : matches) {
      found.emplace_back(std::move(match.id_document), match.score);
    }
    return std::unique_ptr<query::DocumentStream>(
        std::make_unique<ScoredDocuments>(std::move(found)));
  }
  std::vector<std::string> id_keys;
  id_keys.reserve(matches.size());
  for (const vector::SearchMatch& match : matches) id_keys.push_back(match.id_key);
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::optional<bson::Document>> docs,
                          ctx.engine->records().FindByIdKeys(info->id, id_keys));
  for (std::size_t k = 0; k < matches.size(); ++k) {
    // Deleted since the index answered: fewer than `limit` documents is what Atlas gives too.
    if (docs[k].has_value()) found.emplace_back(std::move(*docs[k]), matches[k].score);
  }
  return std::unique_ptr<query::DocumentStream>(
      std::make_unique<ScoredDocuments>(std::move(found)));
}

}  // namespace quarry::commands
