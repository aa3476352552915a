// Computed fields of find projections, through the aggregation expression language.
#include "query/expression/expression.h"
#include "query/projection/projection_internal.h"

namespace quarry::query {
namespace {

class ExpressionValue final : public ComputedValue {
 public:
  ExpressionValue(std::shared_ptr<const bson::Document> spec, ExpressionPtr expression)
      : spec_(std::move(spec)), expression_(std::move(expression)) {}

  Status AppendTo(std::string_view key, bson::DocumentView root,
                  bson::DocumentBuilder* out) const override {
    EvalContext context;
    QUARRY_ASSIGN_OR_RETURN(Value value, EvaluateOn(*expression_, root, context));
    value.AppendTo(key, out);
    return Status::OK();
  }

 private:
  std::shared_ptr<const bson::Document> spec_;  // keeps any views the expression holds valid
  ExpressionPtr expression_;
};

}  // namespace

StatusWith<std::unique_ptr<const ComputedValue>> ParseComputedValue(bson::ValueView spec) {
  bson::DocumentBuilder holder;
  holder.Append("v", spec);
  auto owned = std::make_shared<const bson::Document>(std::move(holder).Finish());
  ParseContext context;
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expression, Expression::Parse(owned->Get("v"), context));
  return std::unique_ptr<const ComputedValue>(
      std::make_unique<ExpressionValue>(std::move(owned), std::move(expression)));
}

}  // namespace quarry::query
