// Open client cursors: ids, exclusive use by one getMore at a time, killCursors, idle timeout.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.h"
#include "base/status.h"
#include "query/cursor_source.h"

namespace quarry::cursors {

using CursorId = std::int64_t;
using Clock = std::chrono::steady_clock;

// mongod's cursorTimeoutMillis default.
inline constexpr std::chrono::milliseconds kDefaultIdleTimeout = std::chrono::minutes(10);

struct CursorOptions {
  bool no_cursor_timeout = false;  // never reaped for idleness
  bool tailable = false;           // kept for the getMore handler; the manager does not act on it
  bool await_data = false;
  std::string session_id;  // the logical session that opened it (lsid's id), empty for none
  // The interrupt of the operation that opened it, which its plan checks: killing the cursor's
  // session through it also stops a getMore that is reading.
  std::shared_ptr<Interrupt> interrupt;
  // What is left of the opening command's maxTimeMS, which bounds the time its getMores work
  // (not the time the cursor idles), as in mongod; none without a maxTimeMS.
  std::optional<std::chrono::steady_clock::duration> time_left;
  // The user that opened it ("user@db"; empty without authentication): only that user may
  // use it, as in mongod.
  std::string owner;
  // What the cursor's plan reads through and must outlive it (a transaction's view of the
  // data), or null.
  std::shared_ptr<const void> reads_through;
};

class CursorManager;

// A cursor checked out for exclusive use (one getMore). Destroying it hands the cursor back,
// or forgets it if its source is exhausted or it was killed meanwhile. Movable, not copyable.
class PinnedCursor {
 public:
  PinnedCursor(PinnedCursor&& other) noexcept;
  PinnedCursor& operator=(PinnedCursor&& other) noexcept;
  PinnedCursor(const PinnedCursor&) = delete;
  PinnedCursor& operator=(const PinnedCursor&) = delete;
  ~PinnedCursor();

  CursorId id() const;
  const std::string& ns() const;
  const CursorOptions& options() const;
  query::CursorSource& source();
  // Records what is left of its maxTimeMS after a getMore (CursorOptions::time_left).
  void set_time_left(std::chrono::steady_clock::duration left);

  // Forgets the cursor now (after an error, or when the caller reports id 0): a later getMore
  // gets CursorNotFound.
  void Close();

 private:
  friend class CursorManager;
  struct Entry;
  PinnedCursor(CursorManager* manager, std::shared_ptr<Entry> entry)
      : manager_(manager), entry_(std::move(entry)) {}
  void Release();

  CursorManager* manager_ = nullptr;
  std::shared_ptr<Entry> entry_;
};

// The result of killCursors, as the command reports it.
struct KillCursorsResult {
  std::vector<CursorId> killed;
  std::vector<CursorId> not_found;
  std::vector<CursorId> alive;    // always empty: kills take effect at once (or at unpin)
  std::vector<CursorId> unknown;  // always empty
};

// Thread-safe. Owns every open cursor of the server.
class CursorManager {
 public:
  explicit CursorManager(std::chrono::milliseconds idle_timeout = kDefaultIdleTimeout);
  ~CursorManager();
  CursorManager(const CursorManager&) = delete;
  CursorManager& operator=(const CursorManager&) = delete;

  // Keeps `source` under a new id: non-zero, positive, unpredictable, and never handed out
  // twice by this manager. `ns` is "db.collection" as the cursor reply's `ns`.
  CursorId Register(std::string ns, std::unique_ptr<query::CursorSource> source,
                    CursorOptions options = {});

  // Checks out cursor `id` for a getMore on `ns`. Fails with CursorNotFound (43) "cursor id N
  // not found" for unknown, killed or timed-out ids; Unauthorized (13) when the cursor belongs
  // to another namespace or another owner (CursorOptions::owner); CursorInUse (143) while
  // another caller holds it.
  StatusWith<PinnedCursor> Pin(CursorId id, std::string_view ns, std::string_view owner = {});

  // Removes cursor `id` and hands its source to the caller (same errors as Pin).
  StatusWith<std::unique_ptr<query::CursorSource>> Take(CursorId id, std::string_view ns);

  // killCursors: each id of `ns` is killed (a cursor in use dies when its user hands it back)
  // or reported not found (unknown ids and ids of other namespaces).
  KillCursorsResult Kill(std::string_view ns, const std::vector<CursorId>& ids);
  // Unauthorized (13) when one of `ids` is an open cursor of `ns` opened by another owner than
  // `owner`, as mongod's killCursors refuses to kill another user's cursor.
  Status CheckOwner(std::string_view ns, const std::vector<CursorId>& ids,
                    std::string_view owner) const;

  // Kills cursors idle for longer than the timeout at `now` (not those in use or opened with
  // no_cursor_timeout). Returns how many. quarryd calls it from a timer.
  std::size_t ReapIdle(Clock::time_point now);

  // Kills every cursor (for shutdown, or when a collection is dropped: those of `ns`).
  std::size_t KillAll();
  std::size_t KillNamespace(std::string_view ns);
  // killSessions: kills the cursors of session `session_id` (of every session when empty) and
  // interrupts their operations. Returns how many.
  std::size_t KillSession(std::string_view session_id);

  std::size_t size() const;  // open cursors, in use or not

  // serverStatus' metrics.cursor.
  struct Counts {
    std::size_t open = 0;
    std::size_t open_no_timeout = 0;
    std::size_t open_pinned = 0;
    std::uint64_t timed_out = 0;  // reaped for idleness since start
  };
  Counts counts() const;

  // Whether cursor `id` is open and waits for data (a change stream's): a getMore on it parks
  // until events come instead of reading. False for unknown ids.
  bool AwaitsData(CursorId id) const;

 private:
  friend class PinnedCursor;
  void Unpin(const std::shared_ptr<PinnedCursor::Entry>& entry, bool close);
  CursorId NextId();  // REQUIRES: mu_ held

  const std::chrono::milliseconds idle_timeout_;
  mutable std::mutex mu_;
  std::map<CursorId, std::shared_ptr<PinnedCursor::Entry>> cursors_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t timed_out_ = 0;  // guarded by mu_
  std::uint64_t id_key_ = 0;
};

}  // namespace quarry::cursors
