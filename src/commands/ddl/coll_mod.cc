// collMod: changes a collection's validation rules, change-stream pre-images and index options.
#include <optional>
#include <string>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "catalog/collection_info.h"
#include "commands/command_context.h"
#include "commands/ddl/index_modification.h"
#include "commands/execution.h"
#include "commands/register.h"
#include "commands/request_parser.h"
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
    return query::Matcher::Parse(e.value.Document()).status();
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

StatusWith<bson::Document> RunCollMod(CommandContext& ctx, const Request& request) {
  RequestParser args(request);
  QUARRY_ASSIGN_OR_RETURN(std::string coll, args.CollectionName());
  std::optional<IndexModification> index_modification;
  for (const bson::Element& e : request.body) {
    if (e.key == request.name || IsGenericArgument(e.key)) continue;
    if (e.key == "index") {
      QUARRY_ASSIGN_OR_RETURN(index_modification, ParseIndexModification(e.value));
      continue;
    }
    if (e.key == "viewOn" || e.key == "pipeline" || e.key == "timeseries") {
      return Status(ErrorCode::kCommandNotSupported,
                    "collMod option '" + std::string(e.key) + "' is not supported by Quarry yet");
    }
    if (!IsStoredOption(e.key)) {
      return Status(ErrorCode::kInvalidOptions, "unknown option to collMod: " + std::string(e.key));
    }
    QUARRY_RETURN_IF_ERROR(CheckOption(e));
  }
  if (!LookupCollection(ctx, request.db, coll).has_value()) {
    return Status(ErrorCode::kNamespaceNotFound, "ns does not exist: " + request.db + "." + coll);
  }
  bson::DocumentView body = request.body;
  bson::DocumentBuilder reply;
  auto change = [body, &request, &index_modification, &reply](catalog::CollectionInfo* info) {
    if (index_modification.has_value()) {
      QUARRY_RETURN_IF_ERROR(ApplyIndexModification(*index_modification, info, &reply));
    }
    bson::DocumentBuilder options;
    for (const bson::Element& e : info->options.view()) {
      if (!body.Has(e.key)) options.Append(e.key, e.value);
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
