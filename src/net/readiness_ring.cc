#include <liburing.h>
#include <poll.h>

#include <cstring>
#include <vector>

#include "net/readiness_ring_internal.h"

namespace quarry::net::internal {

namespace {

// One completion per arrival: a thread that drains them at every turn of its loop keeps far
// fewer than this; an overflow only ends a watch, which Settle renews.
constexpr unsigned kCompletionEntries = 4096;
constexpr unsigned kSubmissionEntries = 64;

}  // namespace

std::shared_ptr<ReadinessRing> ReadinessRing::Create(std::string* why_not) {
  auto ring = std::make_unique<io_uring>();
  io_uring_params params{};
  // Cooperative task runs with the flag: an arrival marks the shared ring instead of
  // interrupting the owner thread (an interrupt per arrival would cost more than polling saves).
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  params.cq_entries = kCompletionEntries;
  const int result = io_uring_queue_init_params(kSubmissionEntries, ring.get(), &params);
  if (result < 0) {
    *why_not = std::string("io_uring_setup: ") + std::strerror(-result);
    return nullptr;
  }
  if ((params.features & IORING_FEAT_NODROP) == 0) {
    io_uring_queue_exit(ring.get());
    *why_not = "the kernel's io_uring lacks IORING_FEAT_NODROP";
    return nullptr;
  }
  return std::shared_ptr<ReadinessRing>(new ReadinessRing(std::move(ring)));
}

ReadinessRing::ReadinessRing(std::unique_ptr<io_uring> ring)
    : ring_(std::move(ring)), sq_flags_(ring_->sq.kflags), cq_tail_(ring_->cq.ktail) {}

ReadinessRing::~ReadinessRing() { io_uring_queue_exit(ring_.get()); }

io_uring_sqe* ReadinessRing::NextEntry() {
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe != nullptr) return sqe;
  io_uring_submit(ring_.get());  // the submission queue was full: make room
  return io_uring_get_sqe(ring_.get());
}

bool ReadinessRing::Arm(int fd, std::uint64_t token) {
  io_uring_sqe* sqe = NextEntry();
  if (sqe == nullptr) return false;
  io_uring_prep_poll_multishot(sqe, fd, POLLIN);
  io_uring_sqe_set_data64(sqe, token);
  return io_uring_submit(ring_.get()) >= 0;
}

std::uint64_t ReadinessRing::Watch(int fd) {
  std::lock_guard lock(mu_);
  const std::uint64_t token = next_token_++;
  if (!Arm(fd, token)) return 0;
  watched_.emplace(token, fd);
  return token;
}

void ReadinessRing::Forget(std::uint64_t token) {
  if (token == 0) return;
  std::lock_guard lock(mu_);
  if (watched_.erase(token) == 0) return;
  io_uring_sqe* sqe = NextEntry();
  if (sqe == nullptr) return;
  io_uring_prep_poll_remove(sqe, token);
  io_uring_sqe_set_data64(sqe, 0);
  io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
  io_uring_submit(ring_.get());
}

bool ReadinessRing::Raised() const {
  return nudges_.load(std::memory_order_acquire) ||
         (IO_URING_READ_ONCE(*sq_flags_) & IORING_SQ_TASKRUN) != 0 ||
         io_uring_smp_load_acquire(cq_tail_) != settled_tail_;
}

void ReadinessRing::Settle() {
  nudges_.store(false, std::memory_order_relaxed);
  std::vector<std::uint64_t> ended;
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(ring_.get(), head, cqe) {
    ++seen;
    // A poll the kernel ended with a readiness mask rather than an error: its completion did
    // not fit the queue. (A removed poll ends with -ECANCELED, a failed one with its error.)
    if ((cqe->flags & IORING_CQE_F_MORE) == 0 && cqe->user_data != 0 && cqe->res > 0) {
      ended.push_back(cqe->user_data);
    }
  }
  io_uring_cq_advance(ring_.get(), seen);
  settled_tail_ = head;
  const bool overflowed = io_uring_cq_has_overflow(ring_.get());
  if (ended.empty() && !overflowed) return;
  std::lock_guard lock(mu_);
  if (overflowed) io_uring_get_events(ring_.get());  // the rest come at the next Settle
  for (std::uint64_t token : ended) {
    auto it = watched_.find(token);
    if (it != watched_.end()) Arm(it->second, token);
  }
}

}  // namespace quarry::net::internal
