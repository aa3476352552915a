// The logical sessions clients have used, by lsid, for $listLocalSessions and endSessions, and
// the reply of each session's last retryable write, so that a driver's retry is answered
// instead of applied twice — also after a server restart.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "storage/commit_pipeline.h"

namespace quarry::storage {
class Engine;
}  // namespace quarry::storage

namespace quarry::commands {

class SessionRegistry {
 public:
  struct Entry {
    std::string id;            // the lsid's 16-byte UUID
    std::int64_t last_use_ms;  // wall clock
  };

  // Keeps the retryable-write replies in `engine`'s meta family from now on, and loads the
  // ones a previous run kept (dropping those of sessions idle longer than the session
  // timeout, 30 minutes, which drivers no longer use). Call once, before serving.
  Status Attach(storage::Engine* engine);

  // Records a use of session `id` now.
  void Touch(const std::string& id);

  // Retryable writes: the reply of the session's last write with this txnNumber.
  std::optional<bson::Document> RetryReply(const std::string& id, std::int64_t txn_number) const;
  // Remembers it, and once attached stores it with `durability` (that of the write it
  // answers). The write itself has committed by then: a crash in between is the one case in
  // which a retry applies the write again.
  void RememberReply(const std::string& id, std::int64_t txn_number, bson::Document reply,
                     storage::Durability durability = storage::Durability::kNone);
  void End(const std::string& id);
  std::vector<Entry> List() const;

 private:
  static constexpr std::size_t kMaxSessions = 1000000;
  void Store(storage::WriteUnit unit, storage::Durability durability);

  mutable std::mutex mu_;
  storage::Engine* engine_ = nullptr;
  std::map<std::string, std::int64_t> last_use_;
  struct LastWrite {
    std::int64_t txn_number;
    bson::Document reply;
  };
  std::map<std::string, LastWrite> last_write_;
};

}  // namespace quarry::commands
