// Checks a nested document as mongod's IDL checks a strict struct: errors name the field by its
// path ("KillAllSessionsCmd.killAllSessions.user").
#pragma once

#include <initializer_list>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::commands {

struct StrictField {
  std::string_view name;
  bson::Type type;
  std::string_view type_name;  // as IDL names it: "string", "bool", "array", "object"...
  bool required = false;
};

// Location40415 "BSON field '<path>.<f>' is an unknown field." for a field not in `fields`;
// TypeMismatch "BSON field '<path>.<f>' is the wrong type '<t>', expected type '<type_name>'";
// Location40414 "BSON field '<path>.<f>' is missing but a required field".
Status CheckStrictDocument(bson::DocumentView document, std::string_view path,
                           std::initializer_list<StrictField> fields);

// TypeMismatch "BSON field '<path>' is the wrong type '<t>', expected type '<type_name>'".
Status WrongFieldType(std::string_view path, bson::ValueView value, std::string_view type_name);

}  // namespace quarry::commands
