// $jsonSchema in filters (and so in collection validators): the draft-4 keywords mongod
// supports, plus bsonType. Unlike other filter operators, schemas see values as they are:
// arrays are not traversed implicitly.
#include <string>
#include <variant>

#include "query/match/matcher_internal.h"
#include "query/match/matcher_json_schema_internal.h"

namespace quarry::query {
namespace json_schema {
namespace {

Status Failed(std::string reason) { return Status(ErrorCode::kFailedToParse, std::move(reason)); }
Status Mismatch(std::string keyword, std::string what) {
  return Status(ErrorCode::kTypeMismatch,
                "$jsonSchema keyword '" + keyword + "' must be " + std::move(what));
}

StatusWith<std::int64_t> NonNegativeInteger(const std::string& keyword, bson::ValueView value) {
  if (!value.IsNumber()) return Mismatch(keyword, "a number");
  if (!value.IsIntegral()) {
    return Status(ErrorCode::kFailedToParse,
                  "$jsonSchema keyword '" + keyword + "' must be a representable integer");
  }
  if (value.AsInt64() < 0) {
    return Status(ErrorCode::kFailedToParse,
                  "$jsonSchema keyword '" + keyword + "' must be a non-negative integer");
  }
  return value.AsInt64();
}

Status AddJsonType(std::string_view name, std::vector<bson::Type>* types, bool* any_number) {
  if (name == "object") {
    types->push_back(bson::Type::kDocument);
  } else if (name == "array") {
    types->push_back(bson::Type::kArray);
  } else if (name == "number") {
    *any_number = true;
  } else if (name == "boolean") {
    types->push_back(bson::Type::kBool);
  } else if (name == "string") {
    types->push_back(bson::Type::kString);
  } else if (name == "null") {
    types->push_back(bson::Type::kNull);
  } else if (name == "integer") {
    return Status(ErrorCode::kBadValue, "$jsonSchema type 'integer' is not currently supported.");
  } else {
    return Status(ErrorCode::kBadValue, "Unknown type name alias: " + std::string(name));
  }
  return Status::OK();
}

Status AddBsonType(std::string_view name, std::vector<bson::Type>* types, bool* any_number) {
  if (name == "number") {
    *any_number = true;
    return Status::OK();
  }
  bson::Type type;
  if (!bson::TypeFromAlias(name, &type)) {
    return Status(ErrorCode::kBadValue, "Unknown type name alias: " + std::string(name));
  }
  types->push_back(type);
  return Status::OK();
}

StatusWith<std::vector<std::unique_ptr<Schema>>> ParseSchemaArray(const std::string& keyword,
                                                                  bson::ValueView arg, int depth) {
  if (arg.type() != bson::Type::kArray) return Mismatch(keyword, "an array");
  std::vector<std::unique_ptr<Schema>> schemas;
  for (const bson::Element& element : arg.Document()) {
    if (element.value.type() != bson::Type::kDocument) {
      return Mismatch(keyword, "an array of objects");
    }
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> schema,
                            Schema::Parse(element.value.Document(), depth + 1));
    schemas.push_back(std::move(schema));
  }
  if (schemas.empty()) {
    return Status(ErrorCode::kBadValue,
                  "$jsonSchema keyword '" + keyword + "' must be a nonempty array");
  }
  return schemas;
}

}  // namespace

StatusWith<std::unique_ptr<Schema>> Schema::Parse(bson::DocumentView spec, int depth) {
  if (depth > 100) return Failed("$jsonSchema is nested too deeply");
  auto schema = std::make_unique<Schema>();
  if (spec.Has("type") && spec.Has("bsonType")) {
    return Failed("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  }
  for (const bson::Element& element : spec) {
    QUARRY_RETURN_IF_ERROR(
        schema->ParseKeyword(std::string(element.key), element.value, spec, depth));
  }
  return schema;
}

Status Schema::ParseKeyword(const std::string& keyword, bson::ValueView arg,
                            bson::DocumentView spec, int depth) {
  if (keyword == "type" || keyword == "bsonType") {
    auto add = keyword == "type" ? AddJsonType : AddBsonType;
    has_type_ = true;
    if (arg.type() == bson::Type::kString) return add(arg.String(), &types_, &any_number_);
    if (arg.type() != bson::Type::kArray) return Mismatch(keyword, "a string or an array");
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() != bson::Type::kString) {
        return Mismatch(keyword, "an array of strings");
      }
      QUARRY_RETURN_IF_ERROR(add(element.value.String(), &types_, &any_number_));
    }
    return Status::OK();
  }
  if (keyword == "properties") {
    if (arg.type() != bson::Type::kDocument) return Mismatch(keyword, "an object");
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() != bson::Type::kDocument) {
        return Mismatch(keyword, "an object of objects");
      }
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> property,
                              Parse(element.value.Document(), depth + 1));
      properties_.emplace_back(std::string(element.key), std::move(property));
    }
    return Status::OK();
  }
  if (keyword == "required") {
    if (arg.type() != bson::Type::kArray) return Mismatch(keyword, "an array");
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() != bson::Type::kString) {
        return Mismatch(keyword, "an array of strings");
      }
      required_.emplace_back(element.value.String());
    }
    if (required_.empty()) {
      return Status(ErrorCode::kBadValue,
                    "$jsonSchema keyword 'required' cannot be an empty "
                    "array");
    }
    return Status::OK();
  }
  if (keyword == "additionalProperties" || keyword == "additionalItems") {
    const bool properties = keyword == "additionalProperties";
    if (arg.type() == bson::Type::kBool) {
      (properties ? additional_properties_allowed_ : additional_items_allowed_) = arg.Bool();
      return Status::OK();
    }
    if (arg.type() != bson::Type::kDocument) return Mismatch(keyword, "an object or a boolean");
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> sub, Parse(arg.Document(), depth + 1));
    (properties ? additional_properties_ : additional_items_) = std::move(sub);
    return Status::OK();
  }
  if (keyword == "patternProperties") {
    if (arg.type() != bson::Type::kDocument) return Mismatch(keyword, "an object");
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() != bson::Type::kDocument) {
        return Mismatch(keyword, "an object of objects");
      }
      QUARRY_ASSIGN_OR_RETURN(Regex regex, Regex::Compile(element.key, ""));
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> sub,
                              Parse(element.value.Document(), depth + 1));
      pattern_properties_.emplace_back(std::move(regex), std::move(sub));
    }
    return Status::OK();
  }
  if (keyword == "minProperties" || keyword == "maxProperties" || keyword == "minLength" ||
      keyword == "maxLength" || keyword == "minItems" || keyword == "maxItems") {
    QUARRY_ASSIGN_OR_RETURN(std::int64_t n, NonNegativeInteger(keyword, arg));
    if (keyword == "minProperties") min_properties_ = n;
    if (keyword == "maxProperties") max_properties_ = n;
    if (keyword == "minLength") min_length_ = n;
    if (keyword == "maxLength") max_length_ = n;
    if (keyword == "minItems") min_items_ = n;
    if (keyword == "maxItems") max_items_ = n;
    return Status::OK();
  }
  if (keyword == "dependencies") {
    if (arg.type() != bson::Type::kDocument) return Mismatch(keyword, "an object");
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() == bson::Type::kDocument) {
        QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> sub,
                                Parse(element.value.Document(), depth + 1));
        dependencies_.emplace_back(std::string(element.key), std::move(sub));
      } else if (element.value.type() == bson::Type::kArray) {
        std::vector<std::string> names;
        for (const bson::Element& name : element.value.Document()) {
          if (name.value.type() != bson::Type::kString) {
            return Mismatch(keyword, "an object of objects or arrays of strings");
          }
          names.emplace_back(name.value.String());
        }
        dependencies_.emplace_back(std::string(element.key), std::move(names));
      } else {
        return Mismatch(keyword, "an object of objects or arrays of strings");
      }
    }
    return Status::OK();
  }
  if (keyword == "enum") {
    if (arg.type() != bson::Type::kArray) return Mismatch(keyword, "an array");
    for (const bson::Element& element : arg.Document()) enum_.push_back(element.value);
    if (enum_.empty()) {
      return Status(ErrorCode::kFailedToParse,
                    "$jsonSchema keyword 'enum' cannot be an empty "
                    "array");
    }
    has_enum_ = true;
    return Status::OK();
  }
  if (keyword == "minimum" || keyword == "maximum") {
    if (!arg.IsNumber()) return Mismatch(keyword, "a number");
    (keyword == "minimum" ? minimum_ : maximum_) = arg;
    return Status::OK();
  }
  if (keyword == "exclusiveMinimum" || keyword == "exclusiveMaximum") {
    if (arg.type() != bson::Type::kBool) return Mismatch(keyword, "a boolean");
    const std::string bound = keyword == "exclusiveMinimum" ? "minimum" : "maximum";
    if (!spec.Has(bound)) {
      return Failed("$jsonSchema keyword '" + bound + "' must be a present if " + keyword +
                    " is present");
    }
    (keyword == "exclusiveMinimum" ? exclusive_minimum_ : exclusive_maximum_) = arg.Bool();
    return Status::OK();
  }
  if (keyword == "multipleOf") {
    if (!arg.IsNumber()) return Mismatch(keyword, "a number");
    if (!(arg.AsDouble() > 0)) {
      return Failed("$jsonSchema keyword 'multipleOf' must have a positive value");
    }
    multiple_of_ = arg.AsDouble();
    return Status::OK();
  }
  if (keyword == "pattern") {
    if (arg.type() != bson::Type::kString) return Mismatch(keyword, "a string");
    QUARRY_ASSIGN_OR_RETURN(Regex regex, Regex::Compile(arg.String(), ""));
    pattern_ = std::move(regex);
    return Status::OK();
  }
  if (keyword == "items") {
    if (arg.type() == bson::Type::kDocument) {
      QUARRY_ASSIGN_OR_RETURN(items_, Parse(arg.Document(), depth + 1));
      return Status::OK();
    }
    if (arg.type() != bson::Type::kArray) return Mismatch(keyword, "an array or an object");
    has_item_list_ = true;
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() != bson::Type::kDocument) {
        return Mismatch(keyword, "an array of objects");
      }
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> sub,
                              Parse(element.value.Document(), depth + 1));
      item_list_.push_back(std::move(sub));
    }
    return Status::OK();
  }
  if (keyword == "uniqueItems") {
    if (arg.type() != bson::Type::kBool) return Mismatch(keyword, "a boolean");
    unique_items_ = arg.Bool();
    return Status::OK();
  }
  if (keyword == "allOf" || keyword == "anyOf" || keyword == "oneOf") {
    QUARRY_ASSIGN_OR_RETURN(auto schemas, ParseSchemaArray(keyword, arg, depth));
    (keyword == "allOf" ? all_of_ : keyword == "anyOf" ? any_of_ : one_of_) = std::move(schemas);
    return Status::OK();
  }
  if (keyword == "not") {
    if (arg.type() != bson::Type::kDocument) return Mismatch(keyword, "an object");
    QUARRY_ASSIGN_OR_RETURN(not_, Parse(arg.Document(), depth + 1));
    return Status::OK();
  }
  if (keyword == "title" || keyword == "description") {
    if (arg.type() != bson::Type::kString) return Mismatch(keyword, "a string");
    return Status::OK();
  }
  if (keyword == "$ref" || keyword == "$schema" || keyword == "default" ||
      keyword == "definitions" || keyword == "format" || keyword == "id") {
    return Failed("$jsonSchema keyword '" + keyword + "' is not currently supported");
  }
  return Failed("Unknown $jsonSchema keyword: " + keyword);
}

}  // namespace json_schema

namespace {

using json_schema::Schema;

class JsonSchemaNode final : public MatchNode {
 public:
  explicit JsonSchemaNode(std::unique_ptr<Schema> schema) : schema_(std::move(schema)) {}
  bool Matches(bson::ValueView root, MatchDetails*) const override {
    return root.type() == bson::Type::kDocument && schema_->Validate(root);
  }
  bool MatchesSingle(bson::ValueView value, MatchDetails*) const override {
    return schema_->Validate(value);
  }

 private:
  std::unique_ptr<Schema> schema_;
};

}  // namespace

StatusWith<MatchNodePtr> ParseJsonSchemaNode(bson::ValueView schema) {
  if (schema.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "$jsonSchema must be an object");
  }
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> parsed, Schema::Parse(schema.Document(), 0));
  return MatchNodePtr(std::make_unique<JsonSchemaNode>(std::move(parsed)));
}

}  // namespace quarry::query
