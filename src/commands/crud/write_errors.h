// Per-statement failures of a write command, reported inside its ok:1 reply as mongod does:
// writeErrors: [{index, code, codeName, errmsg, <extra info such as keyPattern/keyValue>}].
#pragma once

#include <cstddef>
#include <vector>

#include "base/status.h"
#include "bson/builder.h"

namespace quarry::commands {

struct WriteError {
  std::size_t index = 0;  // position of the statement in the request
  Status status;
};

// Appends writeErrors (sorted by index) when there are any.
void AppendWriteErrors(bson::DocumentBuilder* b, std::vector<WriteError> errors);

// The write-command limit on statements per batch (maxWriteBatchSize).
Status CheckBatchSize(std::size_t statements);

}  // namespace quarry::commands
