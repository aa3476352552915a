// Matcher: the public face of the match tree, and the equalities an upsert copies.
#include "query/match/matcher.h"

#include "bson/builder.h"
#include "query/expression/expression.h"
#include "query/match/matcher_internal.h"
#include "query/value/evaluation_error.h"

namespace quarry::query {
namespace {

bool IsLiteralForUpsert(bson::ValueView value) {
  if (value.type() == bson::Type::kRegex) return false;
  if (value.type() != bson::Type::kDocument || value.Document().empty()) return true;
  std::string_view first = value.Document().FirstKey();
  return first.empty() || first[0] != '$' || first == "$ref" || first == "$id" || first == "$db";
}

// Collects the equalities of `filter` (through $and) in order.
void CollectEqualities(bson::DocumentView filter, std::vector<EqualityCondition>* out) {
  for (const bson::Element& element : filter) {
    if (element.key == "$and") {
      if (element.value.type() != bson::Type::kArray) continue;
      for (const bson::Element& clause : element.value.Document()) {
        if (clause.value.type() == bson::Type::kDocument) {
          CollectEqualities(clause.value.Document(), out);
        }
      }
      continue;
    }
    if (!element.key.empty() && element.key[0] == '$') continue;
    if (IsLiteralForUpsert(element.value)) {
      out->push_back(EqualityCondition{std::string(element.key), element.value});
      continue;
    }
    if (element.value.type() != bson::Type::kDocument) continue;
    for (const bson::Element& op : element.value.Document()) {
      if (op.key == "$eq") {
        out->push_back(EqualityCondition{std::string(element.key), op.value});
      } else if (op.key == "$in" && op.value.type() == bson::Type::kArray &&
                 op.value.Document().CountElements() == 1) {
        bson::ValueView only = op.value.Document().begin()->value;
        if (only.type() != bson::Type::kRegex) {
          out->push_back(EqualityCondition{std::string(element.key), only});
        }
      }
    }
  }
}

}  // namespace

StatusWith<Matcher> Matcher::Parse(bson::DocumentView filter) {
  return Parse(filter, bson::DocumentView());
}

StatusWith<Matcher> Matcher::Parse(bson::DocumentView filter, bson::DocumentView let) {
  return Parse(filter, let, nullptr);
}

StatusWith<Matcher> Matcher::Parse(bson::DocumentView filter, bson::DocumentView let,
                                   std::shared_ptr<const bson::StringComparator> collator) {
  Matcher matcher;
  auto owned = std::make_shared<const bson::Document>(bson::Document::Copy(filter));
  std::optional<ParseContext> variables;
  if (!let.empty() || collator != nullptr) {
    variables.emplace();
    variables->set_collator(collator);
    if (!let.empty()) QUARRY_RETURN_IF_ERROR(DefineLetConstants(let, &*variables));
  }
  QUARRY_ASSIGN_OR_RETURN(MatchNodePtr root,
                          ParseFilterNode(owned->view(), variables ? &*variables : nullptr,
                                          collator.get(), &matcher.text_));
  if (matcher.text_ != nullptr && !let.empty()) {
    matcher.let_ = std::make_shared<const bson::Document>(bson::Document::Copy(let));
  }
  matcher.collator_ = std::move(collator);
  matcher.filter_ = std::move(owned);
  matcher.root_ = std::shared_ptr<const MatchNode>(std::move(root));
  matcher.matches_everything_ = filter.empty();
  return matcher;
}

StatusWith<Matcher> Matcher::ParseValueCondition(
    bson::ValueView condition, std::shared_ptr<const bson::StringComparator> collator) {
  // Keep the condition's bytes as the single element of an owned document.
  bson::DocumentBuilder builder;
  builder.Append("", condition);
  auto owned = std::make_shared<const bson::Document>(std::move(builder).Finish());
  QUARRY_ASSIGN_OR_RETURN(MatchNodePtr root,
                          ParseValueConditionNode(owned->view().Get(""), collator.get()));
  Matcher matcher;
  matcher.collator_ = std::move(collator);
  matcher.filter_ = std::move(owned);
  matcher.root_ = std::shared_ptr<const MatchNode>(std::move(root));
  matcher.value_condition_ = true;
  return matcher;
}

namespace {

// `filter` without its $text, which is at its top or in the clauses of its $ands.
void AppendWithoutText(bson::DocumentView filter, bson::DocumentBuilder* out) {
  for (const bson::Element& element : filter) {
    if (element.key == "$text") continue;
    if (element.key != "$and" || element.value.type() != bson::Type::kArray) {
      out->Append(element.key, element.value);
      continue;
    }
    out->OpenArray("$and");
    for (const bson::Element& clause : element.value.Document()) {
      if (clause.value.type() != bson::Type::kDocument) {
        out->Append(clause.key, clause.value);
        continue;
      }
      out->OpenDocument(clause.key);
      AppendWithoutText(clause.value.Document(), out);
      out->Close();
    }
    out->Close();
  }
}

}  // namespace

StatusWith<Matcher> Matcher::RestWithoutText() const {
  bson::DocumentBuilder rest;
  AppendWithoutText(filter(), &rest);
  const bson::Document rest_filter = std::move(rest).Finish();
  return Parse(rest_filter.view(), let_ != nullptr ? let_->view() : bson::DocumentView(),
               collator_);
}

bool Matcher::Matches(bson::DocumentView doc, MatchDetails* details) const {
  if (matches_everything_) return true;
  return root_->Matches(bson::ValueView(bson::Type::kDocument, doc.data(), doc.size()), details);
}

StatusWith<bool> Matcher::Evaluate(bson::DocumentView doc, MatchDetails* details) const {
  if (matches_everything_) return true;
  EvaluationErrorSink sink;
  const bool matched = Matches(doc, details);
  QUARRY_RETURN_IF_ERROR(sink.TakeError());
  return matched;
}

bool Matcher::MatchesValue(bson::ValueView value, MatchDetails* details) const {
  if (!value_condition_) {
    if (value.type() != bson::Type::kDocument) return false;
    return Matches(value.Document(), details);
  }
  return root_->Matches(value, details);
}

std::vector<PathCondition> Matcher::Conjuncts() const {
  std::vector<PathCondition> conditions;
  if (root_ != nullptr && !value_condition_) root_->AppendConjuncts(&conditions);
  return conditions;
}

std::vector<PathCondition> Matcher::BoundingConjuncts() const {
  std::vector<PathCondition> conditions;
  if (root_ != nullptr && !value_condition_) root_->AppendBoundingConjuncts(&conditions);
  return conditions;
}

bson::DocumentView Matcher::filter() const {
  if (value_condition_) return bson::DocumentView();
  return filter_->view();
}

StatusWith<std::vector<EqualityCondition>> Matcher::UpsertEqualities() const {
  std::vector<EqualityCondition> equalities;
  if (value_condition_) return equalities;
  CollectEqualities(filter_->view(), &equalities);
  for (std::size_t i = 0; i < equalities.size(); ++i) {
    const FieldPath a = FieldPath::FromDotted(equalities[i].path);
    for (std::size_t j = i + 1; j < equalities.size(); ++j) {
      const FieldPath b = FieldPath::FromDotted(equalities[j].path);
      if (a == b) {
        return Status(ErrorCode::kNotSingleValueField, "cannot infer query fields to set, path '" +
                                                           a.dotted() + "' is matched twice");
      }
      if (a.IsPrefixOf(b) || b.IsPrefixOf(a)) {
        const FieldPath& shorter = a.size() < b.size() ? a : b;
        const FieldPath& longer = a.size() < b.size() ? b : a;
        return Status(ErrorCode::kNotSingleValueField,
                      "cannot infer query fields to set, both paths '" + shorter.dotted() +
                          "' and '" + longer.dotted() + "' are matched");
      }
    }
  }
  return equalities;
}

}  // namespace quarry::query
