// $jsonSchema's keywords as a table: each keyword's name, what its argument may be, and the
// parser that records it in a Schema. The draft-4 keywords mongod supports, plus bsonType.
// Adding a keyword is adding a row here, the field it fills in matcher_json_schema_internal.h,
// and its check in matcher_json_schema_validate.cc.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "query/match/matcher_json_schema_internal.h"

namespace quarry::query::json_schema {
namespace {

Status Failed(std::string reason) { return Status(ErrorCode::kFailedToParse, std::move(reason)); }

Status Mismatch(std::string_view keyword, std::string_view what) {
  return Status(ErrorCode::kTypeMismatch,
                "$jsonSchema keyword '" + std::string(keyword) + "' must be " + std::string(what));
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

// The kinds of value a keyword's argument may be.
enum ArgKind : unsigned {
  kNumberArg = 1 << 0,
  kStringArg = 1 << 1,
  kBoolArg = 1 << 2,
  kObjectArg = 1 << 3,
  kArrayArg = 1 << 4,
  kOtherArg = 1 << 5,
  kAnyArg = (1 << 6) - 1,
};

ArgKind KindOf(bson::ValueView value) {
  if (value.IsNumber()) return kNumberArg;
  switch (value.type()) {
    case bson::Type::kString:
      return kStringArg;
    case bson::Type::kBool:
      return kBoolArg;
    case bson::Type::kDocument:
      return kObjectArg;
    case bson::Type::kArray:
      return kArrayArg;
    default:
      return kOtherArg;
  }
}

// What a keyword's argument may be. Any other argument fails with TypeMismatch
// "$jsonSchema keyword '<keyword>' must be <what>".
struct Accepts {
  unsigned kinds;
  std::string_view what;
};

constexpr Accepts kAnything{kAnyArg, ""};
constexpr Accepts kNumber{kNumberArg, "a number"};
constexpr Accepts kString{kStringArg, "a string"};
constexpr Accepts kBoolean{kBoolArg, "a boolean"};
constexpr Accepts kObject{kObjectArg, "an object"};
constexpr Accepts kArray{kArrayArg, "an array"};
constexpr Accepts kStringOrArray{kStringArg | kArrayArg, "a string or an array"};
constexpr Accepts kObjectOrBoolean{kObjectArg | kBoolArg, "an object or a boolean"};
constexpr Accepts kArrayOrObject{kArrayArg | kObjectArg, "an array or an object"};

}  // namespace

// The keyword table and its parsers. Each parser records one keyword's argument in `schema`,
// whose type its row has already checked. Members of one class so that Schema can befriend
// them all, and so that rows can name the field they fill.
class SchemaKeywords {
 public:
  struct Arg {
    std::string_view keyword;
    bson::ValueView value;
    bson::DocumentView schema;  // the schema holding the keyword, for keywords that need a sibling
    int depth = 0;              // the schema's nesting depth; its subschemas are one deeper
  };

  struct Keyword {
    std::string_view name;
    Accepts accepts;  // checked before `parse` runs
    Status (*parse)(const Arg& arg, Schema* schema);
  };

  // The row for keyword `name`, or null when mongod does not know it.
  static const Keyword* Find(std::string_view name);

 private:
  using TypeAdder = Status (*)(std::string_view name, std::vector<bson::Type>* types,
                               bool* any_number);
  using Count = std::optional<std::int64_t>;
  using SchemaList = std::vector<std::unique_ptr<Schema>>;

  // type and bsonType: one type name or an array of them.
  template <TypeAdder kAdd>
  static Status Types(const Arg& arg, Schema* schema);
  // minProperties, maxLength, minItems...: a non-negative integer.
  template <Count Schema::*kField>
  static Status NonNegativeCount(const Arg& arg, Schema* schema);
  // allOf, anyOf, oneOf: a nonempty array of subschemas.
  template <SchemaList Schema::*kField>
  static Status Subschemas(const Arg& arg, Schema* schema);
  // minimum and maximum.
  template <bson::ValueView Schema::*kField>
  static Status Bound(const Arg& arg, Schema* schema) {
    schema->*kField = arg.value;
    return Status::OK();
  }

  static Status Properties(const Arg& arg, Schema* schema);
  static Status Required(const Arg& arg, Schema* schema);
  static Status AdditionalProperties(const Arg& arg, Schema* schema) {
    return BoolOrSchema(arg, &schema->additional_properties_allowed_,
                        &schema->additional_properties_);
  }
  static Status PatternProperties(const Arg& arg, Schema* schema);
  static Status Dependencies(const Arg& arg, Schema* schema);
  static Status Enum(const Arg& arg, Schema* schema);
  static Status ExclusiveMinimum(const Arg& arg, Schema* schema) {
    return ExclusiveBound(arg, "minimum", &schema->exclusive_minimum_);
  }
  static Status ExclusiveMaximum(const Arg& arg, Schema* schema) {
    return ExclusiveBound(arg, "maximum", &schema->exclusive_maximum_);
  }
  static Status MultipleOf(const Arg& arg, Schema* schema);
  static Status Pattern(const Arg& arg, Schema* schema);
  static Status Items(const Arg& arg, Schema* schema);
  static Status AdditionalItems(const Arg& arg, Schema* schema) {
    return BoolOrSchema(arg, &schema->additional_items_allowed_, &schema->additional_items_);
  }
  static Status UniqueItems(const Arg& arg, Schema* schema) {
    schema->unique_items_ = arg.value.Bool();
    return Status::OK();
  }
  static Status Not(const Arg& arg, Schema* schema);
  // title and description: annotations, checked for type and otherwise ignored.
  static Status Annotation(const Arg&, Schema*) { return Status::OK(); }
  // Draft-4 keywords mongod rejects.
  static Status Unsupported(const Arg& arg, Schema*) {
    return Failed("$jsonSchema keyword '" + std::string(arg.keyword) +
                  "' is not currently supported");
  }

  // A subschema one level below `arg`'s schema. A `value` that is not an object fails as
  // "must be <what>".
  static StatusWith<std::unique_ptr<Schema>> Subschema(const Arg& arg, bson::ValueView value,
                                                       std::string_view what);
  static Status BoolOrSchema(const Arg& arg, std::optional<bool>* allowed,
                             std::unique_ptr<Schema>* subschema);
  static Status ExclusiveBound(const Arg& arg, std::string_view bound, bool* exclusive);
};

const SchemaKeywords::Keyword* SchemaKeywords::Find(std::string_view name) {
  static constexpr Keyword kKeywords[] = {
      {"type", kStringOrArray, Types<AddJsonType>},
      {"bsonType", kStringOrArray, Types<AddBsonType>},
      {"enum", kArray, Enum},
      // objects
      {"properties", kObject, Properties},
      {"required", kArray, Required},
      {"additionalProperties", kObjectOrBoolean, AdditionalProperties},
      {"patternProperties", kObject, PatternProperties},
      {"minProperties", kNumber, NonNegativeCount<&Schema::min_properties_>},
      {"maxProperties", kNumber, NonNegativeCount<&Schema::max_properties_>},
      {"dependencies", kObject, Dependencies},
      // numbers
      {"minimum", kNumber, Bound<&Schema::minimum_>},
      {"maximum", kNumber, Bound<&Schema::maximum_>},
      {"exclusiveMinimum", kBoolean, ExclusiveMinimum},
      {"exclusiveMaximum", kBoolean, ExclusiveMaximum},
      {"multipleOf", kNumber, MultipleOf},
      // strings
      {"minLength", kNumber, NonNegativeCount<&Schema::min_length_>},
      {"maxLength", kNumber, NonNegativeCount<&Schema::max_length_>},
      {"pattern", kString, Pattern},
      // arrays
      {"items", kArrayOrObject, Items},
      {"additionalItems", kObjectOrBoolean, AdditionalItems},
      {"minItems", kNumber, NonNegativeCount<&Schema::min_items_>},
      {"maxItems", kNumber, NonNegativeCount<&Schema::max_items_>},
      {"uniqueItems", kBoolean, UniqueItems},
      // combinators
      {"allOf", kArray, Subschemas<&Schema::all_of_>},
      {"anyOf", kArray, Subschemas<&Schema::any_of_>},
      {"oneOf", kArray, Subschemas<&Schema::one_of_>},
      {"not", kObject, Not},
      // annotations
      {"title", kString, Annotation},
      {"description", kString, Annotation},
      // draft 4, but not in mongod
      {"$ref", kAnything, Unsupported},
      {"$schema", kAnything, Unsupported},
      {"default", kAnything, Unsupported},
      {"definitions", kAnything, Unsupported},
      {"format", kAnything, Unsupported},
      {"id", kAnything, Unsupported},
  };
  for (const Keyword& keyword : kKeywords) {
    if (keyword.name == name) return &keyword;
  }
  return nullptr;
}

template <SchemaKeywords::TypeAdder kAdd>
Status SchemaKeywords::Types(const Arg& arg, Schema* schema) {
  schema->has_type_ = true;
  if (arg.value.type() == bson::Type::kString) {
    return kAdd(arg.value.String(), &schema->types_, &schema->any_number_);
  }
  for (const bson::Element& element : arg.value.Document()) {
    if (element.value.type() != bson::Type::kString) {
      return Mismatch(arg.keyword, "an array of strings");
    }
    QUARRY_RETURN_IF_ERROR(kAdd(element.value.String(), &schema->types_, &schema->any_number_));
  }
  return Status::OK();
}

template <SchemaKeywords::Count Schema::*kField>
Status SchemaKeywords::NonNegativeCount(const Arg& arg, Schema* schema) {
  const std::string keyword(arg.keyword);
  if (!arg.value.IsIntegral()) {
    return Failed("$jsonSchema keyword '" + keyword + "' must be a representable integer");
  }
  if (arg.value.AsInt64() < 0) {
    return Failed("$jsonSchema keyword '" + keyword + "' must be a non-negative integer");
  }
  schema->*kField = arg.value.AsInt64();
  return Status::OK();
}

template <SchemaKeywords::SchemaList Schema::*kField>
Status SchemaKeywords::Subschemas(const Arg& arg, Schema* schema) {
  SchemaList subschemas;
  for (const bson::Element& element : arg.value.Document()) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> subschema,
                            Subschema(arg, element.value, "an array of objects"));
    subschemas.push_back(std::move(subschema));
  }
  if (subschemas.empty()) {
    return Status(ErrorCode::kBadValue, "$jsonSchema keyword '" + std::string(arg.keyword) +
                                            "' must be a nonempty array");
  }
  schema->*kField = std::move(subschemas);
  return Status::OK();
}

StatusWith<std::unique_ptr<Schema>> SchemaKeywords::Subschema(const Arg& arg, bson::ValueView value,
                                                              std::string_view what) {
  if (value.type() != bson::Type::kDocument) return Mismatch(arg.keyword, what);
  return Schema::Parse(value.Document(), arg.depth + 1);
}

Status SchemaKeywords::BoolOrSchema(const Arg& arg, std::optional<bool>* allowed,
                                    std::unique_ptr<Schema>* subschema) {
  if (arg.value.type() == bson::Type::kBool) {
    *allowed = arg.value.Bool();
    return Status::OK();
  }
  QUARRY_ASSIGN_OR_RETURN(*subschema, Subschema(arg, arg.value, "an object or a boolean"));
  return Status::OK();
}

Status SchemaKeywords::ExclusiveBound(const Arg& arg, std::string_view bound, bool* exclusive) {
  if (!arg.schema.Has(bound)) {
    return Failed("$jsonSchema keyword '" + std::string(bound) + "' must be a present if " +
                  std::string(arg.keyword) + " is present");
  }
  *exclusive = arg.value.Bool();
  return Status::OK();
}

Status SchemaKeywords::Properties(const Arg& arg, Schema* schema) {
  for (const bson::Element& element : arg.value.Document()) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> property,
                            Subschema(arg, element.value, "an object of objects"));
    schema->properties_.emplace_back(std::string(element.key), std::move(property));
  }
  return Status::OK();
}

Status SchemaKeywords::Required(const Arg& arg, Schema* schema) {
  for (const bson::Element& element : arg.value.Document()) {
    if (element.value.type() != bson::Type::kString) {
      return Mismatch(arg.keyword, "an array of strings");
    }
    schema->required_.emplace_back(element.value.String());
  }
  if (schema->required_.empty()) {
    return Status(ErrorCode::kBadValue, "$jsonSchema keyword 'required' cannot be an empty array");
  }
  return Status::OK();
}

Status SchemaKeywords::PatternProperties(const Arg& arg, Schema* schema) {
  for (const bson::Element& element : arg.value.Document()) {
    // The subschema's type is checked before the pattern compiles, as mongod reports it first.
    if (element.value.type() != bson::Type::kDocument) {
      return Mismatch(arg.keyword, "an object of objects");
    }
    QUARRY_ASSIGN_OR_RETURN(Regex regex, Regex::Compile(element.key, ""));
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> subschema,
                            Subschema(arg, element.value, "an object of objects"));
    schema->pattern_properties_.emplace_back(std::move(regex), std::move(subschema));
  }
  return Status::OK();
}

Status SchemaKeywords::Dependencies(const Arg& arg, Schema* schema) {
  constexpr std::string_view kWhat = "an object of objects or arrays of strings";
  for (const bson::Element& element : arg.value.Document()) {
    if (element.value.type() == bson::Type::kArray) {
      std::vector<std::string> names;
      for (const bson::Element& name : element.value.Document()) {
        if (name.value.type() != bson::Type::kString) return Mismatch(arg.keyword, kWhat);
        names.emplace_back(name.value.String());
      }
      schema->dependencies_.emplace_back(std::string(element.key), std::move(names));
    } else {
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> subschema,
                              Subschema(arg, element.value, kWhat));
      schema->dependencies_.emplace_back(std::string(element.key), std::move(subschema));
    }
  }
  return Status::OK();
}

Status SchemaKeywords::Enum(const Arg& arg, Schema* schema) {
  for (const bson::Element& element : arg.value.Document()) schema->enum_.push_back(element.value);
  if (schema->enum_.empty()) return Failed("$jsonSchema keyword 'enum' cannot be an empty array");
  schema->has_enum_ = true;
  return Status::OK();
}

Status SchemaKeywords::MultipleOf(const Arg& arg, Schema* schema) {
  if (!(arg.value.AsDouble() > 0)) {
    return Failed("$jsonSchema keyword 'multipleOf' must have a positive value");
  }
  schema->multiple_of_ = arg.value.AsDouble();
  return Status::OK();
}

Status SchemaKeywords::Pattern(const Arg& arg, Schema* schema) {
  QUARRY_ASSIGN_OR_RETURN(Regex regex, Regex::Compile(arg.value.String(), ""));
  schema->pattern_ = std::move(regex);
  return Status::OK();
}

Status SchemaKeywords::Items(const Arg& arg, Schema* schema) {
  if (arg.value.type() == bson::Type::kDocument) {
    QUARRY_ASSIGN_OR_RETURN(schema->items_, Schema::Parse(arg.value.Document(), arg.depth + 1));
    return Status::OK();
  }
  schema->has_item_list_ = true;
  for (const bson::Element& element : arg.value.Document()) {
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> item,
                            Subschema(arg, element.value, "an array of objects"));
    schema->item_list_.push_back(std::move(item));
  }
  return Status::OK();
}

Status SchemaKeywords::Not(const Arg& arg, Schema* schema) {
  QUARRY_ASSIGN_OR_RETURN(schema->not_, Schema::Parse(arg.value.Document(), arg.depth + 1));
  return Status::OK();
}

StatusWith<std::unique_ptr<Schema>> Schema::Parse(bson::DocumentView spec, int depth) {
  if (depth > 100) return Failed("$jsonSchema is nested too deeply");
  auto schema = std::make_unique<Schema>();
  if (spec.Has("type") && spec.Has("bsonType")) {
    return Failed("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  }
  for (const bson::Element& element : spec) {
    const SchemaKeywords::Keyword* keyword = SchemaKeywords::Find(element.key);
    if (keyword == nullptr) {
      return Failed("Unknown $jsonSchema keyword: " + std::string(element.key));
    }
    if ((KindOf(element.value) & keyword->accepts.kinds) == 0) {
      return Mismatch(element.key, keyword->accepts.what);
    }
    QUARRY_RETURN_IF_ERROR(keyword->parse({element.key, element.value, spec, depth}, schema.get()));
  }
  return schema;
}

}  // namespace quarry::query::json_schema
