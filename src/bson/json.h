// Extended JSON in and out (MongoDB's relaxed and canonical forms), through libbson.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::bson {

// Parses one JSON object in Extended JSON (relaxed or canonical). Fails with kFailedToParse.
StatusWith<Document> FromJson(std::string_view json);

}  // namespace quarry::bson
