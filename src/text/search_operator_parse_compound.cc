// $search's operators that hold other operators: compound, embeddedDocument, and queryString,
// whose query spells them.
#include <utility>

#include "text/query_string.h"
#include "text/search_operator_parse_internal.h"

namespace quarry::text::internal {
namespace {

// embeddedDocument's score: {embedded: {aggregate, outerScore}} or a score of any operator.
Status ParseEmbeddedScore(bson::ValueView value, const std::string& at, SearchOperator* op) {
  if (value.type() != bson::Type::kDocument || !value.Document().Get("embedded").exists()) {
    return ParseScore(value, at, op);
  }
  const bson::DocumentView score = value.Document();
  if (std::next(score.begin()) != score.end()) {
    return Bad("\"" + at + "\" takes one of embedded, boost and constant");
  }
  const std::string inner = at + ".embedded";
  bson::ValueView embedded = score.Get("embedded");
  if (embedded.type() != bson::Type::kDocument) return Bad("\"" + inner + "\" must be a document");
  using Aggregate = SearchOperator::EmbeddedAggregate;
  for (const bson::Element& e : embedded.Document()) {
    if (e.key == "aggregate") {
      const std::string_view name =
          e.value.type() == bson::Type::kString ? e.value.String() : std::string_view();
      if (name == "sum") {
        op->embedded_aggregate = Aggregate::kSum;
      } else if (name == "maximum") {
        op->embedded_aggregate = Aggregate::kMaximum;
      } else if (name == "minimum") {
        op->embedded_aggregate = Aggregate::kMinimum;
      } else if (name == "mean") {
        op->embedded_aggregate = Aggregate::kMean;
      } else {
        return Bad("\"" + inner + ".aggregate\" must be sum, maximum, minimum or mean");
      }
    } else if (e.key == "outerScore") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner + ".outerScore", op));
    } else {
      return Unknown(inner, e.key);
    }
  }
  return Status::OK();
}

// Whether every path `op` searches lies under `root` (wildcard paths are resolved later).
bool SearchesUnder(const SearchOperator& op, std::string_view root) {
  for (const std::string& path : op.paths) {
    if (path.find('*') != std::string::npos) continue;
    if (path.size() <= root.size() || !path.starts_with(root) || path[root.size()] != '.') {
      return false;
    }
  }
  for (const auto* clauses : {&op.must, &op.must_not, &op.should, &op.filter}) {
    for (const SearchOperator& clause : *clauses) {
      if (!SearchesUnder(clause, root)) return false;
    }
  }
  return true;
}

}  // namespace

Status ParseCompound(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  std::optional<std::int64_t> minimum;
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "must") {
      QUARRY_RETURN_IF_ERROR(ParseClauses(e.value, inner, &op->must));
    } else if (e.key == "mustNot") {
      QUARRY_RETURN_IF_ERROR(ParseClauses(e.value, inner, &op->must_not));
    } else if (e.key == "should") {
      QUARRY_RETURN_IF_ERROR(ParseClauses(e.value, inner, &op->should));
    } else if (e.key == "filter") {
      QUARRY_RETURN_IF_ERROR(ParseClauses(e.value, inner, &op->filter));
    } else if (e.key == "minimumShouldMatch") {
      minimum = WholeNumber(e.value);
      if (!minimum.has_value() || *minimum < 0) {
        return Bad("\"" + inner + "\" must be a non-negative integer");
      }
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->must.empty() && op->must_not.empty() && op->should.empty() && op->filter.empty()) {
    return Bad("\"" + at + "\" must have at least one of must, mustNot, should and filter");
  }
  if (op->score.kind == ScoreModifier::Kind::kDismax) {
    if (op->should.empty()) return Bad("\"" + at + "\": a dismax score needs should clauses");
    if (!op->must.empty() || !op->must_not.empty() || !op->filter.empty()) {
      return Bad("\"" + at + "\": a dismax score takes only should clauses");
    }
  }
  if (minimum.has_value()) {
    if (static_cast<std::size_t>(*minimum) > op->should.size()) {
      return Bad("\"" + at + ".minimumShouldMatch\" must not exceed the number of should clauses");
    }
    op->minimum_should_match = static_cast<std::size_t>(*minimum);
  }
  return Status::OK();
}

// embeddedDocument: {path, operator: {<one operator>}, score}.
Status ParseEmbeddedDocument(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "path") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty() ||
          e.value.String().find('*') != std::string_view::npos) {
        return Bad("\"" + inner + "\" must be the path of an embeddedDocuments field");
      }
      op->paths = {std::string(e.value.String())};
    } else if (e.key == "operator") {
      if (e.value.type() != bson::Type::kDocument) {
        return Bad("\"" + inner + "\" must be one operator document");
      }
      QUARRY_RETURN_IF_ERROR(ParseClauses(e.value, inner, &op->inner));
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseEmbeddedScore(e.value, inner, op));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->paths.empty()) return Bad("\"" + at + ".path\" is required");
  if (op->inner.empty()) return Bad("\"" + at + ".operator\" is required");
  if (!SearchesUnder(op->inner.front(), op->paths.front())) {
    return Bad("\"" + at + ".operator\" must search paths under \"" + op->paths.front() + "\"");
  }
  return Status::OK();
}

// queryString: {defaultPath, query, score}; the query becomes the operators it spells.
StatusWith<SearchOperator> ParseQueryStringOperator(bson::ValueView spec, const std::string& at) {
  if (spec.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  std::optional<std::string_view> default_path, query;
  SearchOperator scored;
  for (const bson::Element& e : spec.Document()) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "defaultPath" || e.key == "query") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Bad("\"" + inner + "\" must be a non-empty string");
      }
      (e.key == "query" ? query : default_path) = e.value.String();
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, &scored));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (!default_path.has_value()) return Bad("\"" + at + ".defaultPath\" is required");
  if (!query.has_value()) return Bad("\"" + at + ".query\" is required");
  if (default_path->find('*') != std::string_view::npos) {
    return Bad("\"" + at + ".defaultPath\" cannot be a wildcard");
  }
  StatusWith<SearchOperator> parsed = ParseQueryString(*query, *default_path);
  if (!parsed.ok()) {
    return Status(parsed.status().code(),
                  "\"" + at + ".query\": " + std::string(parsed.status().reason()));
  }
  SearchOperator op = std::move(parsed).value();
  // Only clauses within the query drop out; a whole query of stop words matches nothing.
  op.absent_without_terms = false;
  if (scored.score.kind == ScoreModifier::Kind::kComputed) return op;
  if (op.score.kind != ScoreModifier::Kind::kComputed) {
    // The query's own boost applies first; the option's score to what that gives.
    SearchOperator whole;
    whole.kind = SearchOperator::Kind::kCompound;
    whole.must.push_back(std::move(op));
    op = std::move(whole);
  }
  op.score = std::move(scored.score);
  return op;
}

}  // namespace quarry::text::internal
