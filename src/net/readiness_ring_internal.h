// Lets an io thread that polls for its next event learn, from memory alone, that one may
// have come: a socket it watches received bytes, or another thread posted it a completion.
//
// Each watched socket has a multishot poll in an io_uring set up with cooperative task runs:
// an arrival then raises a flag in the ring's shared memory instead of interrupting the thread,
// and the thread, still polling in user space, sees it. The ring only says "look"; Asio's
// reactor still delivers every event, so a missed or spurious flag costs time, never an event.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

struct io_uring;
struct io_uring_sqe;

namespace quarry::net::internal {

class ReadinessRing {
 public:
  // Null, with the reason in `why_not`, where the kernel offers no such ring (too old, or
  // io_uring refused, as container seccomp profiles often do).
  static std::shared_ptr<ReadinessRing> Create(std::string* why_not);
  ~ReadinessRing();
  ReadinessRing(const ReadinessRing&) = delete;
  ReadinessRing& operator=(const ReadinessRing&) = delete;

  // Raises the flag for the socket's arrivals from now on; 0 when the ring could not take it
  // (its arrivals then simply go unseen here). Forget the token before closing the socket: the
  // ring holds a reference to the socket, which stays open, to the peer too, while watched.
  std::uint64_t Watch(int fd);
  void Forget(std::uint64_t token);

  // Any thread: a completion was posted to the io thread that owns the ring.
  void Nudge() { nudges_.store(true, std::memory_order_release); }

  // The owner thread. Raised: something came since the last Settle (the kernel has flagged
  // work for the thread, or already posted it as a completion when an interrupt took the
  // thread through the kernel). Settle, right after the thread has looked for events itself:
  // clears the nudge and the completions so far (a watch the kernel ended is watched again).
  bool Raised() const;
  void Settle();

 private:
  explicit ReadinessRing(std::unique_ptr<io_uring> ring);
  // A free submission entry, submitting what is queued when there is none; null if still none.
  io_uring_sqe* NextEntry();
  // Queues a multishot poll of `fd` under `token` and submits it; false if that failed.
  bool Arm(int fd, std::uint64_t token);

  std::unique_ptr<io_uring> ring_;
  const unsigned* sq_flags_;  // the kernel's flags word in the shared submission ring
  const unsigned* cq_tail_;   // the kernel's end of the shared completion queue
  unsigned settled_tail_ = 0;
  std::atomic<bool> nudges_{false};
  std::mutex mu_;  // submissions and watched_: Watch and Forget may come from any thread
  std::uint64_t next_token_ = 1;
  std::unordered_map<std::uint64_t, int> watched_;  // token -> fd
};

}  // namespace quarry::net::internal
