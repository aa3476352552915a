// Reading the oplog: every committed change, in commit order, keyed by its timestamp. The commit
// pipeline writes it; change streams read it from a timestamp on.
#pragma once

#include <cstdint>
#include <memory>

#include "base/status.h"
#include "bson/value.h"
#include "storage/types.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
}  // namespace internal

// A forward scan of oplog entries. Pins a RocksDB iterator: keep it for one batch, then start a
// new Scan after the last ts() seen.
class OplogCursor {
 public:
  virtual ~OplogCursor() = default;
  virtual bool Valid() const = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  virtual Timestamp ts() const = 0;
  // The entry as the caller built it plus `ts` (Timestamp) first and `wall` (Date) last. Valid
  // until Next() or destruction. REQUIRES: Valid().
  virtual bson::DocumentView entry() const = 0;
  virtual Status status() const = 0;
};

class Oplog {
 public:
  explicit Oplog(internal::EngineState* state) : state_(state) {}

  // The timestamp of the newest committed entry, 0 when the oplog is empty.
  Timestamp LatestTimestamp() const;
  // The timestamp of the oldest entry still stored, 0 when the oplog is empty.
  StatusWith<Timestamp> OldestTimestamp() const;

  // Entries with ts >= `from`, in timestamp order. Scan(ts + 1) resumes after ts.
  std::unique_ptr<OplogCursor> Scan(Timestamp from) const;
  // Entries with ts <= `through`, newest first. ScanBackward(ts - 1) resumes after ts.
  std::unique_ptr<OplogCursor> ScanBackward(Timestamp through) const;

  // Ends every entry with ts < `first_kept`: persists the boundary (it survives restarts), from
  // then on no read returns them, and the table files wholly below it are deleted. The boundary
  // never moves backwards.
  Status TrimBefore(Timestamp first_kept);
  // The boundary of the last trim: entries below it may be gone (0: never trimmed).
  Timestamp TrimmedBefore() const;

 private:
  internal::EngineState* state_;
};

}  // namespace quarry::storage
