// $match: the query matcher, plus top-level $expr conditions evaluated here so they can see the
// pipeline's variables (`let`, $lookup's `let`).
#include <optional>

#include "query/match/matcher.h"
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

class MatchStage final : public NamedStage {
 public:
  MatchStage(bson::ValueView spec, std::optional<Matcher> matcher, std::vector<ExpressionPtr> exprs)
      : NamedStage("$match", spec), matcher_(std::move(matcher)), exprs_(std::move(exprs)) {}

  const Matcher* pushdown_filter() const override {
    return exprs_.empty() && matcher_.has_value() ? &*matcher_ : nullptr;
  }

  StatusWith<bool> Transform(bson::Document* doc, EvalContext& ctx) const override {
    if (matcher_.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(bool matched, matcher_->Evaluate(*doc));
      if (!matched) return false;
    }
    if (exprs_.empty()) return true;
    ctx.SetRoot(doc->view());
    for (const ExpressionPtr& expr : exprs_) {
      QUARRY_ASSIGN_OR_RETURN(Value v, expr->Evaluate(ctx));
      if (!v.view().Truthy()) return false;
    }
    return true;
  }

 private:
  std::optional<Matcher> matcher_;
  std::vector<ExpressionPtr> exprs_;
};

}  // namespace

StatusWith<StageList> ParseMatchStage(bson::ValueView spec, StageParseContext& ctx) {
  if (spec.type() != bson::Type::kDocument) {
    return LocationError(15959, "the match filter must be an expression in an object");
  }
  bson::DocumentBuilder rest;
  std::vector<ExpressionPtr> exprs;
  bool has_rest = false;
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "$expr") {
      QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(e.value, *ctx.expressions));
      exprs.push_back(std::move(expr));
    } else {
      rest.Append(e.key, e.value);
      has_rest = true;
    }
  }
  std::optional<Matcher> matcher;
  if (has_rest) {
    bson::Document filter = std::move(rest).Finish();
    QUARRY_ASSIGN_OR_RETURN(Matcher parsed, Matcher::Parse(filter, bson::DocumentView(),
                                                           ctx.expressions->shared_collator()));
    if (parsed.text_search() != nullptr) {
      // Only the collection's text index answers $text, so only the stage that reads from the
      // collection can hold one.
      if (!ctx.is_first_stage) {
        return LocationError(17313,
                             "$match with $text is only allowed as the first pipeline stage");
      }
      if (!exprs.empty()) {
        return Status(ErrorCode::kBadValue,
                      "a $match with both $text and a top-level $expr is not supported by "
                      "Quarry yet: put the $expr in a $match of its own after it");
      }
    }
    if (!parsed.MatchesEverything()) matcher = std::move(parsed);
  }
  return StageList{std::make_shared<MatchStage>(spec, std::move(matcher), std::move(exprs))};
}

}  // namespace quarry::query::stages
