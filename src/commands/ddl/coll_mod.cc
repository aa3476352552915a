// collMod: changes a collection's validation rules, change-stream pre-images, capped limits and
// index options.
#include <optional>
#include <string>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/crud/document_validator.h"
#include "commands/ddl/capped_options.h"
#include "commands/ddl/index_modification.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
#include "commands/service_state.h"
#include "commands/views/view_definition.h"
#include "query/match/matcher.h"

namespace quarry::commands {
namespace {

// Options collMod may set, stored in the collection's options as given.
constexpr std::string_view kStoredOptions[] = {"validator", "validationLevel", "validationAction",
                                               "changeStreamPreAndPostImages",
                                               "expireAfterSeconds"};

bool IsStoredOption(std::string_view key) {
  for (std::string_view option : kStoredOptions) {
    if (option == key) return true;
  }
  return false;
}

Status CheckOption(const bson::Element& e) {
  if (e.key == "validator") {
    if (e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch, "'validator' must be an object");
    }
    return CheckValidatorFilter(e.value.Document());
  }
  if (e.key == "validationLevel") {
    if (e.value.type() != bson::Type::kString ||
        (e.value.String() != "off" && e.value.String() != "strict" &&
         e.value.String() != "moderate")) {
      return Status(ErrorCode::kBadValue, "validationLevel must be one of off, strict, moderate");
    }
  }
  if (e.key == "validationAction") {
    if (e.value.type() != bson::Type::kString ||
        (e.value.String() != "error" && e.value.String() != "warn")) {
      return Status(ErrorCode::kBadValue, "validationAction must be one of error, warn");
    }
  }
  if (e.key == "changeStreamPreAndPostImages") {
    if (e.value.type() != bson::Type::kDocument ||
        e.value.Document().Get("enabled").type() != bson::Type::kBool) {
      return Status(ErrorCode::kTypeMismatch,
                    "changeStreamPreAndPostImages must be {enabled: <bool>}");
    }
  }
  return Status::OK();
}

// The fields of collMod's body other than the command's own and the generic arguments.
bson::Document OwnFields(const Request& request) {
  bson::DocumentBuilder o;
  for (const bson::Element& e : request.body) {
    if (e.key != request.name && !IsGenericArgument(e.key)) o.Append(e.key, e.value);
  }
  return std::move(o).Finish();
}

// A view's collMod redefines it: `viewOn` and `pipeline` together, nothing else; its collation
// stays.
StatusWith<bson::Document> ModifyView(CommandContext& ctx, const Request& request,
                                      const std::string& coll,
                                      const catalog::CollectionInfo& view) {
  const bson::Document fields = OwnFields(request);
  for (const bson::Element& e : fields.view()) {
    if (e.key != "viewOn" && e.key != "pipeline") {
      return Status(ErrorCode::kInvalidOptions,
                    "option not supported on a view: " + std::string(e.key));
    }
  }
  const bool both = fields.view().Has("viewOn") && fields.view().Has("pipeline");
  if (!both && ctx.service().config.auth_enabled) {
    return Status(ErrorCode::kInvalidOptions,
                  "Must specify both 'viewOn' and 'pipeline' when modifying a view and auth is "
                  "enabled");
  }
  // Without auth, the one not given stays as it was.
  auto given_or_current = [&](std::string_view field) {
    return fields.view().Has(field) ? fields.view().Get(field) : view.options.view().Get(field);
  };
  bson::ValueView collation = view.options.view().Get("collation");
  QUARRY_ASSIGN_OR_RETURN(
      bson::Document options,
      ViewOptions(ctx, request.db, coll,
                  {.view_on = given_or_current("viewOn"),
                   .pipeline = given_or_current("pipeline"),
                   .collation = collation.type() == bson::Type::kDocument ? collation.Document()
                                                                          : bson::DocumentView()},
                  "collMod"));
  auto change = [&options](catalog::CollectionInfo* info) {
    if (!info->is_view()) {
      return Status(ErrorCode::kConflictingOperationInProgress,
                    "the view was replaced by a collection while it was modified");
    }
    info->options = options;
    return Status::OK();
  };
  bson::DocumentBuilder o;
  o.AppendString("collMod", coll);
  o.AppendElements(fields.view());
  QUARRY_RETURN_IF_ERROR(ctx.catalog().ModifyCollection(request.db, coll, change,
                                                        std::move(o).Finish(), DdlOptionsFor(ctx)));
  return bson::Document();
}

StatusWith<bson::Document> RunCollMod(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  std::shared_ptr<const catalog::CollectionInfo> existing = ctx.catalog().Find(request.db, coll);
  if (existing != nullptr && existing->is_view()) {
    return ModifyView(ctx, request, coll, *existing);
  }
  std::optional<IndexModification> index_modification;
  std::optional<std::int64_t> capped_size;
  std::optional<std::int64_t> capped_max;
  for (const bson::Element& e : request.body) {
    if (e.key == request.name || IsGenericArgument(e.key)) continue;
    if (e.key == "index") {
      QUARRY_ASSIGN_OR_RETURN(index_modification, ParseIndexModification(e.value));
      continue;
    }
    if (e.key == "cappedSize") {
      QUARRY_ASSIGN_OR_RETURN(capped_size, ParseCappedSize("collMod", e.key, e.value));
      continue;
    }
    if (e.key == "cappedMax") {
      QUARRY_ASSIGN_OR_RETURN(capped_max, ParseCappedMax("collMod", e.key, e.value));
      continue;
    }
    if (e.key == "viewOn" || e.key == "pipeline") {
      return Status(ErrorCode::kInvalidOptions,
                    "option only supported on a view: " + std::string(e.key));
    }
    if (e.key == "timeseries") {
      return Status(ErrorCode::kCommandNotSupported,
                    "collMod option 'timeseries' is not supported by Quarry yet");
    }
    if (!IsStoredOption(e.key)) {
      return Status(ErrorCode::kInvalidOptions, "unknown option to collMod: " + std::string(e.key));
    }
    QUARRY_RETURN_IF_ERROR(CheckOption(e));
  }
  if (existing == nullptr) {
    return Status(ErrorCode::kNamespaceNotFound, "ns does not exist: " + request.db + "." + coll);
  }
  const bool resizes = capped_size.has_value() || capped_max.has_value();
  if (resizes && !existing->is_capped()) {
    return Status(ErrorCode::kInvalidOptions, "Collection must be capped.");
  }
  bson::DocumentView body = request.body;
  bson::DocumentBuilder reply;
  auto change = [&](catalog::CollectionInfo* info) {
    if (index_modification.has_value()) {
      QUARRY_RETURN_IF_ERROR(ApplyIndexModification(*index_modification, info, &reply));
    }
    bson::DocumentBuilder options;
    if (resizes) {
      // A smaller limit evicts at the next insert, as in mongod.
      bson::ValueView max = info->options.Get("max");
      CappedOptions capped{.size = capped_size.value_or(info->capped_limits().max_bytes),
                           .max = capped_max.has_value() ? capped_max
                                  : max.IsNumber()       ? std::optional(max.AsInt64())
                                                         : std::nullopt};
      AppendCappedOptions(capped, &options);
    }
    for (const bson::Element& e : info->options.view()) {
      if (body.Has(e.key)) continue;
      if (resizes && (e.key == "capped" || e.key == "size" || e.key == "max")) continue;
      options.Append(e.key, e.value);
    }
    for (const bson::Element& e : body) {
      if (e.key != request.name && IsStoredOption(e.key)) options.Append(e.key, e.value);
    }
    info->options = std::move(options).Finish();
    return Status::OK();
  };
  bson::DocumentBuilder o;
  for (const bson::Element& e : body) {
    if (!IsGenericArgument(e.key)) o.Append(e.key, e.value);
  }
  QUARRY_RETURN_IF_ERROR(ctx.catalog().ModifyCollection(request.db, coll, change,
                                                        std::move(o).Finish(), DdlOptionsFor(ctx)));
  return std::move(reply).Finish();
}

}  // namespace

void RegisterCollModCommand(CommandRegistry& registry) {
  registry.Add({.name = "collMod",
                .flags = kChangesStoredData,
                .run = RunCollMod,
                .auth = OnNamespace({auth::ActionType::kCollMod})});
}

}  // namespace quarry::commands
