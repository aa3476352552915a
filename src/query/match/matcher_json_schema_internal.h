// The parsed form of a $jsonSchema filter. Folder-private.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/value/regex.h"

namespace quarry::query::json_schema {

// One schema (or subschema). Keywords about a type only constrain values of that type: a
// "minimum" lets strings through, as JSON Schema says.
class Schema {
 public:
  // Parses `spec` through the keyword table (matcher_json_schema_keywords.cc). `depth` is the
  // nesting depth of `spec`; past 100 parsing fails.
  static StatusWith<std::unique_ptr<Schema>> Parse(bson::DocumentView spec, int depth);
  // Whether `value` satisfies the schema (matcher_json_schema_validate.cc).
  bool Validate(bson::ValueView value) const;

 private:
  // The keyword table's parsers, which fill in the fields below.
  friend class SchemaKeywords;

  bool ValidateDocument(bson::DocumentView doc) const;
  bool ValidateArray(bson::DocumentView array) const;

  bool has_type_ = false;
  std::vector<bson::Type> types_;
  bool any_number_ = false;

  std::vector<std::pair<std::string, std::unique_ptr<Schema>>> properties_;
  std::vector<std::string> required_;
  std::optional<bool> additional_properties_allowed_;
  std::unique_ptr<Schema> additional_properties_;
  std::vector<std::pair<Regex, std::unique_ptr<Schema>>> pattern_properties_;
  std::optional<std::int64_t> min_properties_;
  std::optional<std::int64_t> max_properties_;
  std::vector<
      std::pair<std::string, std::variant<std::vector<std::string>, std::unique_ptr<Schema>>>>
      dependencies_;

  bool has_enum_ = false;
  std::vector<bson::ValueView> enum_;

  bson::ValueView minimum_;
  bson::ValueView maximum_;
  bool exclusive_minimum_ = false;
  bool exclusive_maximum_ = false;
  double multiple_of_ = 0;

  std::optional<std::int64_t> min_length_;
  std::optional<std::int64_t> max_length_;
  std::optional<Regex> pattern_;

  std::unique_ptr<Schema> items_;
  std::vector<std::unique_ptr<Schema>> item_list_;
  bool has_item_list_ = false;
  std::optional<bool> additional_items_allowed_;
  std::unique_ptr<Schema> additional_items_;
  std::optional<std::int64_t> min_items_;
  std::optional<std::int64_t> max_items_;
  bool unique_items_ = false;

  std::vector<std::unique_ptr<Schema>> all_of_;
  std::vector<std::unique_ptr<Schema>> any_of_;
  std::vector<std::unique_ptr<Schema>> one_of_;
  std::unique_ptr<Schema> not_;
};

}  // namespace quarry::query::json_schema
