// local.oplog.rs: the oplog as mongod's clients read it. Each of Quarry's entries is shown in
// mongod's entry format, so that change-data-capture tools can tail it with find.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/cursors/awaiting_tail.h"
#include "query/cursor_source.h"
#include "query/match/matcher.h"
#include "query/projection/projection.h"
#include "storage/oplog_entry.h"
#include "storage/types.h"

namespace quarry::storage {
class Oplog;
}

namespace quarry::commands {

// `entry` in mongod's format: {op, ns, ui, o, o2?, ts, t, v: 2, wall}. An update's `o` is its
// whole post-image with o2 {_id} (the form mongod logs a replacement in), an insert's o2 its _id.
bson::Document MongodOplogEntry(const storage::OplogEntry& entry);

struct OplogReadSpec {
  std::optional<query::Matcher> filter;  // none: every entry
  std::optional<query::Projection> projection;
  bool backward = false;  // sort {$natural: -1}
  std::int64_t skip = 0;
  std::int64_t limit = 0;  // 0: no limit
  bool tailable = false;   // stays open at the end, for entries yet to come
  // The first timestamp the filter can match (from its conditions on ts), to seek past the rest.
  storage::Timestamp from = 0;
  // The last timestamp the filter can match; for a backward scan, where it starts.
  storage::Timestamp through = ~storage::Timestamp{0};
};

// Reads the oplog's entries in timestamp order (or its reverse) through `spec`. Each batch opens
// a new scan after the last entry it returned, so an idle cursor pins no RocksDB iterator.
class OplogSource final : public TailSource {
 public:
  OplogSource(storage::Oplog* oplog, OplogReadSpec spec);

  StatusWith<query::Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) override;
  bool exhausted() const override { return exhausted_; }

  // The newest timestamp read so far: a tailing getMore waits for a commit after it.
  storage::Timestamp last_read() const override { return last_read_; }
  bool tailable() const { return spec_.tailable; }

 private:
  storage::Oplog* oplog_;
  OplogReadSpec spec_;
  storage::Timestamp next_;  // where the next scan starts
  storage::Timestamp last_read_ = 0;
  std::int64_t skipped_ = 0;
  std::int64_t returned_ = 0;
  bool exhausted_ = false;
};

// The first and last timestamps `filter`'s top-level conditions on `ts` allow.
void BoundTimestamps(const query::Matcher& filter, OplogReadSpec* spec);

}  // namespace quarry::commands
