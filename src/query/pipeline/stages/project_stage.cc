// $project, $addFields, $set, $unset: document reshaping through AggProjection.
#include "query/pipeline/stages/agg_projection.h"
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

class ProjectionStage final : public NamedStage {
 public:
  ProjectionStage(std::string name, bson::ValueView spec, AggProjection projection)
      : NamedStage(std::move(name), spec), projection_(std::move(projection)) {}

  StatusWith<bool> Transform(bson::Document* doc, EvalContext& ctx) const override {
    Value root = TakeAsValue(doc);
    QUARRY_ASSIGN_OR_RETURN(*doc, projection_.Apply(root, ctx));
    return true;
  }

 private:
  AggProjection projection_;
};

Status RequireObject(std::string_view stage, bson::ValueView spec, int code) {
  if (spec.type() != bson::Type::kDocument) {
    return LocationError(
        code, std::string(stage) +
                  " specification must be an object, but found: " + std::string(TypeName(spec)));
  }
  return Status::OK();
}

StatusWith<StageList> ParseAddFieldsAs(std::string name, bson::ValueView spec,
                                       StageParseContext& ctx) {
  QUARRY_RETURN_IF_ERROR(RequireObject(name, spec, 40272));
  QUARRY_ASSIGN_OR_RETURN(AggProjection projection,
                          AggProjection::ParseAddFields(spec.Document(), *ctx.expressions));
  return StageList{std::make_shared<ProjectionStage>(std::move(name), spec, std::move(projection))};
}

}  // namespace

StatusWith<StageList> ParseProjectStage(bson::ValueView spec, StageParseContext& ctx) {
  QUARRY_RETURN_IF_ERROR(RequireObject("$project", spec, 15969));
  QUARRY_ASSIGN_OR_RETURN(AggProjection projection,
                          AggProjection::ParseProject(spec.Document(), *ctx.expressions));
  return StageList{std::make_shared<ProjectionStage>("$project", spec, std::move(projection))};
}

StatusWith<StageList> ParseAddFieldsStage(bson::ValueView spec, StageParseContext& ctx) {
  return ParseAddFieldsAs("$addFields", spec, ctx);
}

StatusWith<StageList> ParseSetStage(bson::ValueView spec, StageParseContext& ctx) {
  return ParseAddFieldsAs("$set", spec, ctx);
}

StatusWith<StageList> ParseUnsetStage(bson::ValueView spec, StageParseContext&) {
  QUARRY_ASSIGN_OR_RETURN(AggProjection projection, AggProjection::ParseUnset(spec));
  return StageList{std::make_shared<ProjectionStage>("$unset", spec, std::move(projection))};
}

}  // namespace quarry::query::stages
