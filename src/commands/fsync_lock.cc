#include "commands/fsync_lock.h"

#include <chrono>

#include "commands/command.h"

namespace quarry::commands {
namespace {

// Interrupt has no waker of its own, so a wait looks at it this often.
constexpr std::chrono::milliseconds kInterruptPoll{50};

// $out and $merge are the last stage of a pipeline; nothing else in one writes.
bool EndsInWritingStage(const Request& request) {
  const bson::ValueView pipeline = request.body.Get("pipeline");
  if (pipeline.type() != bson::Type::kArray) return false;
  bson::ValueView last;
  for (const bson::Element& stage : pipeline.Document()) last = stage.value;
  if (last.type() != bson::Type::kDocument) return false;
  const bson::DocumentView stage = last.Document();
  return stage.Has("$out") || stage.Has("$merge");
}

// Waits while `blocked()`, looking at `interrupt` between waits; fails with its error.
template <typename Predicate>
Status WaitWhile(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 const Interrupt& interrupt, Predicate blocked) {
  while (blocked()) {
    QUARRY_RETURN_IF_ERROR(interrupt.Check());
    cv.wait_for(lock, kInterruptPoll);
  }
  return interrupt.Check();
}

}  // namespace

bool MayWrite(const Command& command, const Request& request) {
  if (command.has(kWritesData) || command.has(kChangesStoredData)) return true;
  return command.name == "aggregate" && EndsInWritingStage(request);
}

FsyncLock::Pass& FsyncLock::Pass::operator=(Pass&& other) noexcept {
  if (this != &other) {
    Reset();
    lock_ = std::exchange(other.lock_, nullptr);
  }
  return *this;
}

void FsyncLock::Pass::Reset() {
  if (lock_ != nullptr) std::exchange(lock_, nullptr)->Leave();
}

FsyncLock::Pass FsyncLock::TryEnter() {
  std::lock_guard lock(mu_);
  if (closed()) return Pass();
  ++passes_;
  return Pass(this);
}

StatusWith<FsyncLock::Pass> FsyncLock::Enter(const Interrupt& interrupt) {
  std::unique_lock lock(mu_);
  QUARRY_RETURN_IF_ERROR(WaitWhile(lock, cv_, interrupt, [this] { return closed(); }));
  ++passes_;
  return Pass(this);
}

void FsyncLock::Leave() {
  std::lock_guard lock(mu_);
  if (--passes_ == 0) cv_.notify_all();
}

StatusWith<std::int64_t> FsyncLock::Lock(const Interrupt& interrupt,
                                         const std::function<Status()>& flush) {
  std::unique_lock lock(mu_);
  // Another first lock is on its way: this one nests inside it once it is taken.
  QUARRY_RETURN_IF_ERROR(WaitWhile(lock, cv_, interrupt, [this] { return taking_; }));
  if (lock_count_ > 0) return ++lock_count_;
  taking_ = true;
  Status status = WaitWhile(lock, cv_, interrupt, [this] { return passes_ > 0; });
  if (status.ok()) {
    // Nothing writes now; the flush runs without the mutex so that passes can be refused and
    // the lock count read meanwhile.
    lock.unlock();
    status = flush();
    lock.lock();
  }
  taking_ = false;
  if (status.ok()) ++lock_count_;
  cv_.notify_all();
  if (!status.ok()) return status;
  return lock_count_;
}

StatusWith<std::int64_t> FsyncLock::Unlock() {
  std::lock_guard lock(mu_);
  if (lock_count_ == 0) {
    return Status(ErrorCode::kIllegalOperation, "fsyncUnlock called when not locked");
  }
  if (--lock_count_ == 0) cv_.notify_all();
  return lock_count_;
}

void FsyncLock::UnlockAll() {
  std::lock_guard lock(mu_);
  lock_count_ = 0;
  cv_.notify_all();
}

std::int64_t FsyncLock::lock_count() const {
  std::lock_guard lock(mu_);
  return lock_count_;
}

}  // namespace quarry::commands
