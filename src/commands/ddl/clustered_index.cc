#include "commands/ddl/clustered_index.h"

#include <string>

#include "bson/builder.h"
#include "bson/types.h"

namespace quarry::commands {
namespace {

Status WrongType(std::string_view field, bson::ValueView value, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field 'clusteredIndex." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected type '" + std::string(expected) + "'");
}

bool IsAscendingId(bson::DocumentView key) {
  auto first = key.begin();
  if (first == key.end() || first->key != "_id" || !first->value.IsNumber() ||
      first->value.AsDouble() != 1) {
    return false;
  }
  return ++first == key.end();
}

Status Missing(std::string_view field) {
  return Status(ErrorCode::kLocation40414, "BSON field 'clusteredIndex." + std::string(field) +
                                               "' is missing but a required field");
}

}  // namespace

StatusWith<bson::Document> ClusteredIndexSpec(bson::ValueView option) {
  if (option.type() == bson::Type::kBool) {
    return Status(static_cast<ErrorCode>(5979703),
                  "The 'clusteredIndex' legacy format {clusteredIndex: <bool>} is only supported "
                  "for specific internal collections and vice versa");
  }
  if (option.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'create.clusteredIndex' is the wrong type '" +
                      std::string(bson::TypeAlias(option.type())) + "', expected type 'object'");
  }
  std::optional<bson::DocumentView> key;
  std::optional<bool> unique;
  std::string name = "_id_";
  std::optional<double> version;
  for (const bson::Element& e : option.Document()) {
    if (e.key == "key") {
      if (e.value.type() != bson::Type::kDocument) return WrongType(e.key, e.value, "object");
      key = e.value.Document();
    } else if (e.key == "unique") {
      if (e.value.type() != bson::Type::kBool) return WrongType(e.key, e.value, "bool");
      unique = e.value.Bool();
    } else if (e.key == "name") {
      if (e.value.type() != bson::Type::kString) return WrongType(e.key, e.value, "string");
      name = std::string(e.value.String());
    } else if (e.key == "v") {
      if (!e.value.IsNumber()) return WrongType(e.key, e.value, "int");
      version = e.value.AsDouble();
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field 'clusteredIndex." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (!key.has_value()) return Missing("key");
  if (!unique.has_value()) return Missing("unique");
  if (!*unique) {
    return Status(static_cast<ErrorCode>(5979700),
                  "The clusteredIndex option requires unique: true to be specified");
  }
  if (!IsAscendingId(*key)) {
    return Status(ErrorCode::kInvalidIndexSpecificationOption,
                  "The clusteredIndex option is only supported for key: {_id: 1}");
  }
  if (version.has_value() && *version != 2) {
    return Status(static_cast<ErrorCode>(5979704),
                  "Invalid clusteredIndex specification " + option.ToJson() +
                      "; cannot create a clusteredIndex with v=" +
                      std::to_string(static_cast<long long>(*version)));
  }
  bson::DocumentBuilder spec;
  spec.AppendInt32("v", 2);
  spec.OpenDocument("key").AppendInt32("_id", 1).Close();
  spec.AppendString("name", name);
  spec.AppendBool("unique", true);
  return std::move(spec).Finish();
}

std::optional<bson::Document> ClusteredIndexEntry(const catalog::CollectionInfo& info) {
  bson::ValueView clustered = info.options.view().Get("clusteredIndex");
  if (clustered.type() != bson::Type::kDocument) return std::nullopt;
  bson::DocumentBuilder entry;
  entry.AppendElements(clustered.Document());
  entry.AppendBool("clustered", true);
  return std::move(entry).Finish();
}

}  // namespace quarry::commands
