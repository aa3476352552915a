// Crash recovery of the docs family. Records are written without the WAL (commit_pipeline.cc
// says why), so after a crash the family holds the records of the oplog up to some point at or
// after its applied-through point in meta (records_flush_tracker.h); this redoes the entries
// after that point from the oplog, which the WAL kept.
#pragma once

#include "base/status.h"

namespace quarry::storage::internal {

struct EngineState;

// Applies every record change of the oplog after the records' applied-through point, then
// deletes again the record ranges of dropped collections. Idempotent; call at open, before any
// commit. REQUIRES: state->latest_timestamp is loaded.
Status RecoverRecords(EngineState* state);

// Makes the docs family durable (a flush) and moves the applied-through point to the newest
// published entry, so that the oplog entries it depends on may be deleted: the oplog's trim
// and the engine's close call it first.
Status PersistRecords(EngineState* state);

}  // namespace quarry::storage::internal
