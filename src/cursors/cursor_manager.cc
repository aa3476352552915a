// CursorManager: the table of open cursors, pinning for exclusive use, kills and the idle
// reaper.
#include "cursors/cursor_manager.h"

#include <random>
#include <utility>

namespace quarry::cursors {

struct PinnedCursor::Entry {
  CursorId id = 0;
  std::string ns;
  CursorOptions options;
  std::unique_ptr<query::CursorSource> source;
  bool pinned = false;
  Clock::time_point last_used;
};

namespace {

constexpr std::uint64_t kMask63 = (std::uint64_t{1} << 63) - 1;

Status NotFound(CursorId id) {
  return Status(ErrorCode::kCursorNotFound, "cursor id " + std::to_string(id) + " not found");
}

}  // namespace

// --- PinnedCursor ---

PinnedCursor::PinnedCursor(PinnedCursor&& other) noexcept
    : manager_(std::exchange(other.manager_, nullptr)), entry_(std::move(other.entry_)) {}

PinnedCursor& PinnedCursor::operator=(PinnedCursor&& other) noexcept {
  if (this != &other) {
    Release();
    manager_ = std::exchange(other.manager_, nullptr);
    entry_ = std::move(other.entry_);
  }
  return *this;
}

PinnedCursor::~PinnedCursor() { Release(); }

CursorId PinnedCursor::id() const { return entry_->id; }
const std::string& PinnedCursor::ns() const { return entry_->ns; }
const CursorOptions& PinnedCursor::options() const { return entry_->options; }

void PinnedCursor::set_time_left(std::chrono::steady_clock::duration left) {
  entry_->options.time_left = left;
}
query::CursorSource& PinnedCursor::source() { return *entry_->source; }

void PinnedCursor::Close() {
  if (manager_ != nullptr && entry_ != nullptr) manager_->Unpin(entry_, /*close=*/true);
  manager_ = nullptr;
  entry_.reset();
}

void PinnedCursor::Release() {
  if (manager_ != nullptr && entry_ != nullptr) manager_->Unpin(entry_, /*close=*/false);
  manager_ = nullptr;
  entry_.reset();
}

// --- CursorManager ---

CursorManager::CursorManager(std::chrono::milliseconds idle_timeout) : idle_timeout_(idle_timeout) {
  std::random_device random;
  id_key_ = (static_cast<std::uint64_t>(random()) << 32) ^ random();
}

CursorManager::~CursorManager() = default;

CursorId CursorManager::NextId() {
  // A keyed bijection of a counter over 63 bits: ids look random to clients, are positive, and
  // can never repeat within this manager's life (no bookkeeping of dead ids needed).
  while (true) {
    std::uint64_t x = next_sequence_++ & kMask63;
    x = (x ^ (id_key_ & kMask63)) & kMask63;
    x = (x * 0x9E3779B97F4A7C15ull) & kMask63;
    x ^= x >> 29;
    x = (x * 0xBF58476D1CE4E5B9ull) & kMask63;
    x ^= x >> 32;
    const auto id = static_cast<CursorId>(x & kMask63);
    if (id != 0 && cursors_.find(id) == cursors_.end()) return id;
  }
}

CursorId CursorManager::Register(std::string ns, std::unique_ptr<query::CursorSource> source,
                                 CursorOptions options) {
  auto entry = std::make_shared<PinnedCursor::Entry>();
  entry->ns = std::move(ns);
  entry->options = options;
  entry->source = std::move(source);
  entry->last_used = Clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  entry->id = NextId();
  cursors_.emplace(entry->id, entry);
  return entry->id;
}

StatusWith<PinnedCursor> CursorManager::Pin(CursorId id, std::string_view ns,
                                            std::string_view owner) {
  std::shared_ptr<PinnedCursor::Entry> expired;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cursors_.find(id);
  if (it == cursors_.end()) return NotFound(id);
  PinnedCursor::Entry& entry = *it->second;
  if (entry.ns != ns) {
    return Status(ErrorCode::kUnauthorized, "Requested getMore on namespace '" + std::string(ns) +
                                                "', but cursor belongs to a different namespace " +
                                                entry.ns);
  }
  if (entry.options.owner != owner) {
    return Status(ErrorCode::kUnauthorized,
                  "cursor id " + std::to_string(id) + " was not created by the authenticated user");
  }
  if (entry.pinned) {
    return Status(ErrorCode::kCursorInUse,
                  "cursor id " + std::to_string(id) + " is already in use");
  }
  // Expire on access too, so a timed-out cursor dies even between reaper runs.
  if (!entry.options.no_cursor_timeout && Clock::now() - entry.last_used >= idle_timeout_) {
    expired = std::move(it->second);
    cursors_.erase(it);
    return NotFound(id);
  }
  entry.pinned = true;
  return PinnedCursor(this, it->second);
}

bool CursorManager::AwaitsData(CursorId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cursors_.find(id);
  return it != cursors_.end() && it->second->options.await_data;
}

StatusWith<std::unique_ptr<query::CursorSource>> CursorManager::Take(CursorId id,
                                                                     std::string_view ns) {
  QUARRY_ASSIGN_OR_RETURN(PinnedCursor pinned, Pin(id, ns));
  std::shared_ptr<PinnedCursor::Entry> entry = pinned.entry_;
  std::unique_ptr<query::CursorSource> source = std::move(entry->source);
  pinned.Close();
  return source;
}

void CursorManager::Unpin(const std::shared_ptr<PinnedCursor::Entry>& entry, bool close) {
  std::shared_ptr<PinnedCursor::Entry> dead;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  entry->pinned = false;
  entry->last_used = Clock::now();
  auto it = cursors_.find(entry->id);
  if (it == cursors_.end() || it->second != entry) return;  // killed while in use
  if (close || entry->source == nullptr || entry->source->exhausted()) {
    dead = std::move(it->second);
    cursors_.erase(it);
  }
}

KillCursorsResult CursorManager::Kill(std::string_view ns, const std::vector<CursorId>& ids) {
  KillCursorsResult result;
  std::vector<std::shared_ptr<PinnedCursor::Entry>> dead;
  std::lock_guard<std::mutex> lock(mu_);
  for (CursorId id : ids) {
    auto it = cursors_.find(id);
    if (it == cursors_.end() || it->second->ns != ns) {
      result.not_found.push_back(id);
      continue;
    }
    // A cursor in use stays alive for its current user (who holds a reference) and is gone
    // for everyone else from now on.
    dead.push_back(std::move(it->second));
    cursors_.erase(it);
    result.killed.push_back(id);
  }
  return result;
}

CursorManager::Counts CursorManager::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  Counts counts;
  counts.open = cursors_.size();
  for (const auto& item : cursors_) {
    if (item.second->options.no_cursor_timeout) ++counts.open_no_timeout;
    if (item.second->pinned) ++counts.open_pinned;
  }
  counts.timed_out = timed_out_;
  return counts;
}

Status CursorManager::CheckOwner(std::string_view ns, const std::vector<CursorId>& ids,
                                 std::string_view owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (CursorId id : ids) {
    auto it = cursors_.find(id);
    if (it != cursors_.end() && it->second->ns == ns && it->second->options.owner != owner) {
      return Status(ErrorCode::kUnauthorized,
                    "not authorized to kill cursor on " + std::string(ns) + ": cursor id " +
                        std::to_string(id) + " was not created by the authenticated user");
    }
  }
  return Status::OK();
}

std::size_t CursorManager::ReapIdle(Clock::time_point now) {
  std::vector<std::shared_ptr<PinnedCursor::Entry>> dead;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    const PinnedCursor::Entry& entry = *it->second;
    if (!entry.pinned && !entry.options.no_cursor_timeout &&
        now - entry.last_used >= idle_timeout_) {
      dead.push_back(std::move(it->second));
      it = cursors_.erase(it);
      ++timed_out_;
    } else {
      ++it;
    }
  }
  return dead.size();
}

std::size_t CursorManager::KillAll() {
  std::map<CursorId, std::shared_ptr<PinnedCursor::Entry>> dead;
  std::lock_guard<std::mutex> lock(mu_);
  dead.swap(cursors_);
  return dead.size();
}

std::size_t CursorManager::KillNamespace(std::string_view ns) {
  std::vector<std::shared_ptr<PinnedCursor::Entry>> dead;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    if (it->second->ns == ns) {
      dead.push_back(std::move(it->second));
      it = cursors_.erase(it);
    } else {
      ++it;
    }
  }
  return dead.size();
}

std::size_t CursorManager::KillSession(std::string_view session_id) {
  std::vector<std::shared_ptr<PinnedCursor::Entry>> dead;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    const CursorOptions& options = it->second->options;
    const bool owned =
        session_id.empty() ? !options.session_id.empty() : options.session_id == session_id;
    if (!owned) {
      ++it;
      continue;
    }
    if (options.interrupt != nullptr) options.interrupt->Kill();
    dead.push_back(std::move(it->second));
    it = cursors_.erase(it);
  }
  return dead.size();
}

std::size_t CursorManager::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cursors_.size();
}

}  // namespace quarry::cursors
