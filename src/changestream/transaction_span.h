// A committed transaction's changes are consecutive oplog entries, written as one atomic chunk,
// each with the transaction's `lsid` and `txnNumber`. Change streams show them as mongod shows
// the operations of a transaction's applyOps entry: all at the commit's time (the last entry's
// timestamp), told apart by their position (txnOpIndex in the resume token), so a stream that
// starts at or inside a transaction shows all of it, never part.
#pragma once

#include <optional>

#include "base/status.h"
#include "storage/oplog.h"
#include "storage/types.h"

namespace quarry::changestream {

struct TransactionSpan {
  storage::Timestamp first = 0;
  storage::Timestamp last = 0;  // the commit's time
  bool Contains(storage::Timestamp ts) const { return first <= ts && ts <= last; }
};

// The span of the transaction that made the change at `ts`; nullopt when the entry there is no
// transaction's (or there is none).
StatusWith<std::optional<TransactionSpan>> TransactionSpanAt(const storage::Oplog& oplog,
                                                             storage::Timestamp ts);

}  // namespace quarry::changestream
