// $replaceRoot {newRoot: <expr>} and $replaceWith <expr>.
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

class ReplaceRootStage final : public NamedStage {
 public:
  ReplaceRootStage(std::string name, bson::ValueView spec, ExpressionPtr new_root)
      : NamedStage(std::move(name), spec), new_root_(std::move(new_root)) {}

  StatusWith<bool> Transform(bson::Document* doc, EvalContext& ctx) const override {
    Value root = TakeAsValue(doc);
    ctx.SetRoot(root);
    QUARRY_ASSIGN_OR_RETURN(Value result, new_root_->Evaluate(ctx));
    if (!result.IsDocument()) {
      return LocationError(40228,
                           "'newRoot' expression must evaluate to an object, but resulting "
                           "value was: " +
                               (result.missing() ? std::string("MISSING") : result.ToJson()) +
                               ". Type of resulting value: '" + std::string(TypeName(result)) +
                               "'. Input document: " + root.ToJson());
    }
    *doc = bson::Document::Copy(result.view().Document());
    return true;
  }

 private:
  ExpressionPtr new_root_;
};

}  // namespace

StatusWith<StageList> ParseReplaceRootStage(bson::ValueView spec, StageParseContext& ctx) {
  if (spec.type() != bson::Type::kDocument) {
    return LocationError(40229,
                         "expected an object as specification for $replaceRoot stage, "
                         "got " +
                             std::string(TypeName(spec)));
  }
  bson::ValueView new_root;
  for (const bson::Element& e : spec.Document()) {
    if (e.key != "newRoot") {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '$replaceRoot." + std::string(e.key) + "' is an unknown field.");
    }
    new_root = e.value;
  }
  if (!new_root.exists()) {
    return LocationError(40231, "no newRoot specified for the $replaceRoot stage");
  }
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(new_root, *ctx.expressions));
  return StageList{std::make_shared<ReplaceRootStage>("$replaceRoot", spec, std::move(expr))};
}

StatusWith<StageList> ParseReplaceWithStage(bson::ValueView spec, StageParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(spec, *ctx.expressions));
  return StageList{std::make_shared<ReplaceRootStage>("$replaceWith", spec, std::move(expr))};
}

}  // namespace quarry::query::stages
