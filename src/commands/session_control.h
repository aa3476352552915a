// What session commands (endSessions, killSessions, killAllSessions, refreshSessions,
// $listLocalSessions) and currentOp ask of the server's logical sessions and their
// transactions. server/ implements it; commands reach it through ServiceState.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bson/value.h"
#include "commands/operation_registry.h"

namespace quarry::commands {

// A logical session is mongod's {id, uid}: the lsid's 16-byte id and the 32-byte digest of the
// user that uses it (auth::UserDigest, auth::NoUserDigest without --auth), so two users sending
// the same id have two sessions. Its key here is the id followed by the uid.
inline constexpr std::size_t kSessionIdBytes = 16;
inline std::string SessionKey(std::string_view id, std::string_view uid) {
  std::string key(id);
  key += uid;
  return key;
}
inline std::string_view SessionIdOfKey(std::string_view key) {
  return key.substr(0, kSessionIdBytes);
}
inline std::string_view SessionUidOfKey(std::string_view key) {
  return key.size() > kSessionIdBytes ? key.substr(kSessionIdBytes) : std::string_view();
}

struct LocalSession {
  std::string key;           // SessionKey(id, uid)
  std::int64_t last_use_ms;  // wall clock
  std::string user;          // "user@db" of the user that used it, empty without --auth
};

// A multi-document transaction in progress, as currentOp shows it (mongod's `transaction`
// sub-document and its idle-session entry).
struct OpenTransaction {
  std::string session_key;  // SessionKey(id, uid)
  std::int64_t txn_number = 0;
  bson::Document read_concern;       // parameters.readConcern, with mongod's provenance
  std::uint64_t read_timestamp = 0;  // the snapshot it reads (snapshot level), else 0
  std::int64_t start_wall_ms = 0;
  std::int64_t expiry_wall_ms = 0;  // when the lifetime limit aborts it
  std::int64_t open_micros = 0;
  std::int64_t active_micros = 0;  // time its commands ran; the rest of open_micros it sat idle
  bool active = false;             // a command of it runs now
  ClientConnection last_client;    // the connection of its latest command
};

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // endSessions: forgets the session and what it remembers of its retryable writes.
  virtual void End(const std::string& key) = 0;
  // refreshSessions: counts as a use now, so the session does not expire.
  virtual void Refresh(const std::string& key) = 0;
  // killSessions: interrupts the session's running operations and kills its cursors.
  virtual void Kill(const std::string& key) = 0;
  // The same for every session of the user whose digest is `uid`.
  virtual void KillOfUser(const std::string& uid) = 0;
  // killAllSessions: the same for every session.
  virtual void KillAll() = 0;
  // The sessions in use.
  virtual std::vector<LocalSession> List() const = 0;
  // The multi-document transactions in progress.
  virtual std::vector<OpenTransaction> OpenTransactions() const = 0;
};

}  // namespace quarry::commands
