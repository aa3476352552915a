// TTL indexes: documents whose indexed date is older than the index's expireAfterSeconds are
// deleted by a periodic pass, as mongod's TTL monitor does.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/status.h"
#include "exec/exec_context.h"

namespace quarry::exec {

// What every pass so far did, as serverStatus' metrics.ttl shows it.
struct TtlCounters {
  std::atomic<std::int64_t> passes{0};
  std::atomic<std::int64_t> deleted_documents{0};
};

TtlCounters& GlobalTtlCounters();

// Deletes, in every collection, the documents a ready TTL index says expired before `now`: its
// field is a date, or an array holding a date, earlier than now - expireAfterSeconds (documents
// without such a date never expire), and they match the index's partial filter. The deletes are
// ordinary commits through `commit`, logged like any delete, so change streams show them.
// Returns how many documents it deleted. A collection dropped meanwhile is skipped; any other
// failure stops the pass.
StatusWith<std::int64_t> DeleteExpiredDocuments(const ExecContext& ctx, const Committer& commit,
                                                std::chrono::system_clock::time_point now);

}  // namespace quarry::exec
