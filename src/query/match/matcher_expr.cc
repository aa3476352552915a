// $expr in filters: an aggregation expression evaluated against the document, matching when
// its value is truthy.
#include "query/expression/expression.h"
#include "query/match/matcher_internal.h"
#include "query/value/evaluation_error.h"

namespace quarry::query {
namespace {

class ExprNode final : public MatchNode {
 public:
  explicit ExprNode(ExpressionPtr expression) : expression_(std::move(expression)) {}

  bool Matches(bson::ValueView root, MatchDetails*) const override {
    if (root.type() != bson::Type::kDocument) return false;
    EvalContext context;
    StatusWith<Value> result = EvaluateOn(*expression_, root.Document(), context);
    if (result.ok()) return result.value().view().Truthy();
    // A run-time error (a $divide by zero, say) fails the query through Matcher::Evaluate.
    ReportEvaluationError(result.status());
    return false;
  }

  bool MatchesSingle(bson::ValueView, MatchDetails*) const override { return false; }

 private:
  ExpressionPtr expression_;
};

}  // namespace

bool TextNode::Matches(bson::ValueView, MatchDetails*) const {
  ReportEvaluationError(Status(ErrorCode::kBadValue,
                               "$text is answered through a text index only: it may not be "
                               "evaluated against documents here"));
  return false;
}

StatusWith<MatchNodePtr> ParseExprNode(bson::ValueView expression, const ParseContext* variables) {
  // A copy: parsing may define scoped variables ($let), which must not leak between $exprs.
  ParseContext context = variables != nullptr ? *variables : ParseContext();
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr parsed, Expression::Parse(expression, context));
  return MatchNodePtr(std::make_unique<ExprNode>(std::move(parsed)));
}

}  // namespace quarry::query
