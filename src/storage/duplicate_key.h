// The DuplicateKey error as mongod words it, with keyPattern and keyValue as extra info.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::storage {

// kDuplicateKey with the message "E11000 duplicate key error collection: <ns> index: <index>
// dup key: { _id: 1 }" and extra_info {keyPattern: <key_pattern>, keyValue: <key_value>}.
Status DuplicateKeyError(std::string_view ns, std::string_view index_name,
                         bson::DocumentView key_pattern, bson::DocumentView key_value);

// The _id index's DuplicateKey error for the document whose _id is `id`.
Status DuplicateIdError(std::string_view ns, bson::ValueView id);

// A value as mongod's BSONObj::toString prints it in messages: { a: 1, b: "x" },
// ObjectId('...'), new Date(...).
std::string FormatForMessage(bson::ValueView value);

}  // namespace quarry::storage
