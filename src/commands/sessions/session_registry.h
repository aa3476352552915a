// The logical sessions clients have used, by lsid, for $listLocalSessions and endSessions.
// Quarry keeps no per-session state beyond the last use: it has no transactions yet.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <optional>
#include <vector>

#include "bson/value.h"

namespace quarry::commands {

class SessionRegistry {
 public:
  struct Entry {
    std::string id;            // the lsid's 16-byte UUID
    std::int64_t last_use_ms;  // wall clock
  };

  // Records a use of session `id` now.
  void Touch(const std::string& id);

  // Retryable writes: the reply of the session's last write with this txnNumber, so a retry
  // after a lost reply is answered without applying the write twice (kept in memory: a retry
  // across a server restart executes again).
  std::optional<bson::Document> RetryReply(const std::string& id, std::int64_t txn_number) const;
  void RememberReply(const std::string& id, std::int64_t txn_number, bson::Document reply);
  void End(const std::string& id);
  std::vector<Entry> List() const;

 private:
  static constexpr std::size_t kMaxSessions = 1000000;
  mutable std::mutex mu_;
  std::map<std::string, std::int64_t> last_use_;
  struct LastWrite {
    std::int64_t txn_number;
    bson::Document reply;
  };
  std::map<std::string, LastWrite> last_write_;
};

}  // namespace quarry::commands
