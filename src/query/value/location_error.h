// mongod's numbered errors that have no name (codeName "Location<N>"), and the type names its
// messages use. Shared by every part of the query language.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "bson/types.h"
#include "bson/value.h"
#include "query/value/value.h"

namespace quarry::query {

// The code mongod reports as codeName "Location<code>".
inline ErrorCode LocationCode(int code) { return static_cast<ErrorCode>(code); }
inline Status LocationError(int code, std::string message) {
  return Status(LocationCode(code), std::move(message));
}

// mongod's name of a value's type in messages: "int", "string", "missing"...
inline std::string_view TypeName(bson::ValueView v) { return bson::TypeAlias(v.type()); }
inline std::string_view TypeName(const Value& v) { return TypeName(v.view()); }

}  // namespace quarry::query
