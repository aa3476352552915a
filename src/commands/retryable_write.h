// A retryable write: a driver that lost the reply of a write sends it again with the same lsid
// and txnNumber, and each statement an earlier attempt executed must not execute twice. The
// handler asks, per statement, whether it already ran (and uses its recorded outcome), and
// records each statement it runs atomically with the write itself. server/ implements it.
#pragma once

#include <cstddef>
#include <optional>

#include "bson/value.h"
#include "storage/write_unit.h"

namespace quarry::commands {

class RetryableWrite {
 public:
  virtual ~RetryableWrite() = default;
  // The outcome recorded for statement `stmt` when an earlier attempt executed it: {} for an
  // insert, update or delete that changed its one document, {upserted: <_id>} for an upsert,
  // findAndModify's whole reply. nullopt: it did not run, run it now.
  virtual std::optional<bson::Document> Executed(std::size_t stmt) const = 0;
  // Records in `unit` that statement `stmt` executed with `outcome` (as Executed returns it),
  // if and only if mutation `mutation` of the unit applies.
  virtual void Record(storage::WriteUnit* unit, std::size_t mutation, std::size_t stmt,
                      bson::DocumentView outcome) = 0;
};

}  // namespace quarry::commands
