// Validation of values against a parsed $jsonSchema.
#include <algorithm>
#include <cmath>

#include "bson/compare.h"
#include "query/match/matcher_json_schema_internal.h"

namespace quarry::query::json_schema {
namespace {

// Length of a UTF-8 string in code points, as JSON Schema's minLength/maxLength count it.
std::int64_t CodePoints(std::string_view s) {
  std::int64_t count = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace

bool Schema::Validate(bson::ValueView value) const {
  if (has_type_) {
    const bool type_ok = (any_number_ && value.IsNumber()) ||
                         std::find(types_.begin(), types_.end(), value.type()) != types_.end();
    if (!type_ok) return false;
  }
  if (has_enum_) {
    bool found = false;
    for (bson::ValueView candidate : enum_) {
      if (bson::ValuesEqual(candidate, value)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  switch (value.type()) {
    case bson::Type::kDocument:
      if (!ValidateDocument(value.Document())) return false;
      break;
    case bson::Type::kArray:
      if (!ValidateArray(value.Document())) return false;
      break;
    case bson::Type::kString: {
      const std::int64_t length = CodePoints(value.String());
      if (min_length_ && length < *min_length_) return false;
      if (max_length_ && length > *max_length_) return false;
      if (pattern_ && !pattern_->Matches(value.String())) return false;
      break;
    }
    default:
      if (value.IsNumber()) {
        if (minimum_.exists()) {
          const int c = bson::CompareValues(value, minimum_);
          if (c < 0 || (exclusive_minimum_ && c == 0)) return false;
        }
        if (maximum_.exists()) {
          const int c = bson::CompareValues(value, maximum_);
          if (c > 0 || (exclusive_maximum_ && c == 0)) return false;
        }
        if (multiple_of_ > 0) {
          const double quotient = value.AsDouble() / multiple_of_;
          if (!std::isfinite(quotient) || quotient != std::floor(quotient)) return false;
        }
      }
      break;
  }
  for (const auto& schema : all_of_) {
    if (!schema->Validate(value)) return false;
  }
  if (!any_of_.empty()) {
    bool any = false;
    for (const auto& schema : any_of_) {
      if (schema->Validate(value)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  if (!one_of_.empty()) {
    int matched = 0;
    for (const auto& schema : one_of_) matched += schema->Validate(value) ? 1 : 0;
    if (matched != 1) return false;
  }
  if (not_ && not_->Validate(value)) return false;
  return true;
}

bool Schema::ValidateDocument(bson::DocumentView doc) const {
  for (const std::string& name : required_) {
    if (!doc.Has(name)) return false;
  }
  std::int64_t count = 0;
  for (const bson::Element& element : doc) {
    ++count;
    bool described = false;
    for (const auto& [name, schema] : properties_) {
      if (name == element.key) {
        described = true;
        if (!schema->Validate(element.value)) return false;
      }
    }
    for (const auto& [regex, schema] : pattern_properties_) {
      if (regex.Matches(element.key)) {
        described = true;
        if (!schema->Validate(element.value)) return false;
      }
    }
    if (!described) {
      if (additional_properties_allowed_.has_value() && !*additional_properties_allowed_) {
        return false;
      }
      if (additional_properties_ && !additional_properties_->Validate(element.value)) {
        return false;
      }
    }
  }
  if (min_properties_ && count < *min_properties_) return false;
  if (max_properties_ && count > *max_properties_) return false;
  for (const auto& [name, dependency] : dependencies_) {
    if (!doc.Has(name)) continue;
    if (const auto* names = std::get_if<std::vector<std::string>>(&dependency)) {
      for (const std::string& needed : *names) {
        if (!doc.Has(needed)) return false;
      }
    } else {
      const bson::ValueView whole(bson::Type::kDocument, doc.data(), doc.size());
      if (!std::get<std::unique_ptr<Schema>>(dependency)->Validate(whole)) return false;
    }
  }
  return true;
}

bool Schema::ValidateArray(bson::DocumentView array) const {
  std::vector<bson::ValueView> elements;
  for (const bson::Element& element : array) elements.push_back(element.value);
  const auto count = static_cast<std::int64_t>(elements.size());
  if (min_items_ && count < *min_items_) return false;
  if (max_items_ && count > *max_items_) return false;
  if (items_) {
    for (bson::ValueView element : elements) {
      if (!items_->Validate(element)) return false;
    }
  }
  if (has_item_list_) {
    for (std::size_t i = 0; i < elements.size(); ++i) {
      if (i < item_list_.size()) {
        if (!item_list_[i]->Validate(elements[i])) return false;
      } else if (additional_items_allowed_.has_value() && !*additional_items_allowed_) {
        return false;
      } else if (additional_items_ && !additional_items_->Validate(elements[i])) {
        return false;
      }
    }
  }
  if (unique_items_) {
    for (std::size_t i = 0; i < elements.size(); ++i) {
      for (std::size_t j = i + 1; j < elements.size(); ++j) {
        if (bson::ValuesEqual(elements[i], elements[j])) return false;
      }
    }
  }
  return true;
}

}  // namespace quarry::query::json_schema
