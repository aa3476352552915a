// validate's check of the oplog against a collection (with `full: true`): every entry parses,
// timestamps only go up, and each record the oplog still holds a change of agrees with the
// newest such change: an insert or update left exactly its document, a delete left no record.
// Records whose last change was trimmed away cannot be checked and are not. The walk reads the
// whole oplog, which is why only a full validate makes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "exec/collection.h"
#include "exec/exec_context.h"

namespace quarry::exec {

struct OplogCheck {
  std::int64_t entries = 0;          // oplog entries read
  std::int64_t records_checked = 0;  // records compared with their newest change
  std::vector<std::string> errors;   // the first few inconsistencies, in mongod's words' style
  std::int64_t inconsistencies = 0;  // all of them
  std::vector<std::string> warnings;
};

// Reads the oplog up to its newest entry without holding anything, then, holding the
// collection's writers lock (no write of it commits meanwhile), reads what was committed since
// and compares the records. Keeps one small entry per changed record in memory; past
// `max_memory_bytes` it stops comparing records and says so in a warning.
StatusWith<OplogCheck> CheckOplog(const ExecContext& ctx, const Collection& collection,
                                  std::size_t max_memory_bytes);

// The entries alone, up to the newest (validate of local.oplog.rs).
StatusWith<OplogCheck> CheckOplogEntries(const ExecContext& ctx);

}  // namespace quarry::exec
