// Crash recovery of the docs family. Records are written without the WAL (commit_pipeline.cc
// says why), so after a crash the family holds the records of the oplog up to some point at or
// after its applied-through point in meta (records_flush_tracker.h); this redoes the entries
// after that point from the oplog, which the WAL kept.
#pragma once

#include <vector>

#include "base/status.h"
#include "storage/dropped_range_reclaimer.h"

namespace quarry::storage::internal {

struct EngineState;

// Applies every record change of the oplog after the records' applied-through point.
// Idempotent; call at open, before any commit. REQUIRES: state->latest_timestamp is loaded.
Status RecoverRecords(EngineState* state);

// The drops whose ranges the reclaimer has not removed yet, from their notes in meta (records
// a recovery redid into a dropped collection's range go with it).
StatusWith<std::vector<DroppedRange>> UnreclaimedDrops(EngineState* state);

// Makes the docs family durable (a flush) and moves the applied-through point to the newest
// published entry, so that the oplog entries it depends on may be deleted: the oplog's trim
// and the engine's close call it first.
Status PersistRecords(EngineState* state);

}  // namespace quarry::storage::internal
