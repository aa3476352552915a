#include "commands/views/view_definition.h"

#include <memory>
#include <string>

#include "bson/builder.h"
#include "bson/types.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/aggregate/aggregate_io.h"
#include "commands/views/view_resolution.h"
#include "query/pipeline/pipeline.h"

namespace quarry::commands {
namespace {

Status WrongType(std::string_view command, std::string_view field, bson::ValueView value,
                 std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(command) + "." +
                                              std::string(field) + "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected type '" + std::string(expected) + "'");
}

// Stages a view may not hold: those that write, and those that read no collection.
Status CheckStages(std::string_view ns, bson::DocumentView stages) {
  int position = 0;
  for (const bson::Element& e : stages) {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch,
                    "Each element of the 'pipeline' array must be an object");
    }
    const std::string name(e.value.Document().FirstKey());
    if (name == "$out" || name == "$merge") {
      return Status(ErrorCode::kOptionNotSupportedOnView,
                    "The aggregation stage " + name + " in location " + std::to_string(position) +
                        " of the pipeline cannot be used in the view definition of " +
                        std::string(ns) + " because it writes to disk");
    }
    if (name == "$changeStream") {
      return Status(ErrorCode::kOptionNotSupportedOnView,
                    "$changeStream cannot be used in a view definition");
    }
    if (name == "$currentOp" || name == "$listLocalSessions" || name == "$listSessions" ||
        name == "$documents") {
      return Status(ErrorCode::kInvalidNamespace,
                    "'" + name + "' cannot be used in a view definition");
    }
    // Stages that read the source's indexes or statistics rather than its documents: mongod
    // lets a view start with some of them; Quarry reads a view only as documents.
    if (name == "$collStats" || name == "$indexStats" || name == "$planCacheStats" ||
        name == "$listSearchIndexes" || name == "$vectorSearch" || name == "$search" ||
        name == "$searchMeta") {
      return Status(ErrorCode::kNotImplemented,
                    name + " in a view definition is not supported by Quarry");
    }
    ++position;
  }
  return Status::OK();
}

// The views `view_on` leads through, checked for a cycle back to `name` and for depth.
Status CheckChain(const catalog::Catalog& catalog, std::string_view db, std::string_view name,
                  std::string_view view_on, bson::DocumentView collation) {
  std::string next(view_on);
  for (int depth = 1;; ++depth) {
    if (next == name) {
      return Status(ErrorCode::kGraphContainsCycle,
                    "View cycle detected: " + std::string(db) + "." + std::string(name));
    }
    std::shared_ptr<const catalog::CollectionInfo> info = catalog.Find(db, next);
    if (info == nullptr || !info->is_view()) return Status::OK();
    if (depth == 1) {
      bson::ValueView own = info->options.view().Get("collation");
      const std::string_view theirs =
          own.type() == bson::Type::kDocument ? own.Document().bytes() : std::string_view();
      const std::string_view ours = collation.empty() ? std::string_view() : collation.bytes();
      if (theirs != ours) {
        return Status(ErrorCode::kOptionNotSupportedOnView,
                      "View " + std::string(db) + "." + std::string(name) +
                          " has conflicting collation with view " + std::string(db) + "." + next);
      }
    }
    if (depth >= kMaxViewDepth) {
      return Status(ErrorCode::kViewDepthLimitExceeded,
                    "View depth too deep or view cycle detected; maximum depth is " +
                        std::to_string(kMaxViewDepth));
    }
    next = std::string(info->options.view().Get("viewOn").String());
  }
}

}  // namespace

StatusWith<bson::Document> ViewOptions(CommandContext& ctx, std::string_view db,
                                       std::string_view name, const ViewDefinition& definition,
                                       std::string_view command) {
  if (definition.view_on.type() != bson::Type::kString) {
    return WrongType(command, "viewOn", definition.view_on, "string");
  }
  const std::string_view view_on = definition.view_on.String();
  if (view_on.empty() || view_on.find('\0') != std::string_view::npos || view_on.front() == '.') {
    return Status(ErrorCode::kInvalidNamespace, "Invalid namespace specified '" + std::string(db) +
                                                    "." + std::string(view_on) + "'");
  }
  bson::Document no_stages = bson::ArrayBuilder().Finish();
  bson::DocumentView stages = no_stages.view();
  if (definition.pipeline.exists()) {
    if (definition.pipeline.type() != bson::Type::kArray) {
      return WrongType(command, "pipeline", definition.pipeline, "array");
    }
    stages = definition.pipeline.Document();
  }
  const std::string ns = std::string(db) + "." + std::string(name);
  QUARRY_RETURN_IF_ERROR(CheckStages(ns, stages));
  // Parsed once now, so a definition no read could run is refused when it is made.
  auto io = std::make_shared<AggregateIo>(ctx);
  StatusWith<query::Pipeline> parsed =
      query::Pipeline::Parse(stages, io->MakePipelineContext(std::string(db), {}, false));
  if (!parsed.ok()) return parsed.status();
  QUARRY_RETURN_IF_ERROR(CheckChain(ctx.catalog(), db, name, view_on, definition.collation));

  bson::DocumentBuilder options;
  options.AppendString("viewOn", view_on);
  options.AppendArray("pipeline", stages);
  if (!definition.collation.empty()) options.AppendDocument("collation", definition.collation);
  return std::move(options).Finish();
}

}  // namespace quarry::commands
