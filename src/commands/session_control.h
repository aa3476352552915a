// What session commands (endSessions, killSessions, refreshSessions, $listLocalSessions) ask
// of the server's logical sessions. server/ implements it; commands reach it through
// ServiceState.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quarry::commands {

struct LocalSession {
  std::string id;            // the lsid's 16-byte UUID
  std::int64_t last_use_ms;  // wall clock
};

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // endSessions: forgets the session and what it remembers of its retryable writes.
  virtual void End(const std::string& id) = 0;
  // refreshSessions: counts as a use now, so the session does not expire.
  virtual void Refresh(const std::string& id) = 0;
  // killSessions: interrupts the session's running operations and kills its cursors.
  virtual void Kill(const std::string& id) = 0;
  // killAllSessions: the same for every session.
  virtual void KillAll() = 0;
  // The sessions in use, by id.
  virtual std::vector<LocalSession> List() const = 0;
};

}  // namespace quarry::commands
