// What a write command did, statement by statement: handlers fill it in on their context, the
// reply reports it, and dispatch reads it (getLastError, opcounters, the errors of a w:0 write
// that nobody else will see).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"

namespace quarry::commands {

struct WriteError {
  std::size_t index = 0;  // position of the statement in the request
  Status status;
};

struct Upserted {
  std::size_t index = 0;  // the statement that upserted
  bson::Document id;      // {_id: value}
};

struct WriteOutcome {
  bool present = false;                  // the command reported an outcome
  std::int64_t statements = 0;           // statements the command carried
  std::int64_t n = 0;                    // inserted, matched (with upserts) or deleted
  std::optional<std::int64_t> modified;  // updates: nModified
  bool updated_existing = false;         // an update matched an existing document
  std::vector<Upserted> upserted;
  std::vector<WriteError> errors;  // in statement order once the command is done

  // Puts the errors in statement order; handlers call it when the last statement is done.
  void SortErrors();
  // Appends n, nModified, upserted and writeErrors as mongod's write replies do.
  void AppendTo(bson::DocumentBuilder* b) const;
  // The first error, as getLastError reports it; nullptr when there is none.
  const WriteError* first_error() const { return errors.empty() ? nullptr : &errors.front(); }
};

// The write-command limit on statements per batch (maxWriteBatchSize).
Status CheckBatchSize(std::size_t statements);

}  // namespace quarry::commands
