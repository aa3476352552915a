// Collation documents as mongod prints them in error messages: { locale: "fr", strength: 2 }.
#pragma once

#include <string>

#include "bson/value.h"

namespace quarry::collation {

// `spec` in mongod's shell-like notation (unquoted keys, quoted strings); values other than
// strings, numbers and booleans print as relaxed Extended JSON.
std::string SpecText(bson::DocumentView spec);

}  // namespace quarry::collation
