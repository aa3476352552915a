// The io threads' readiness ring: arrivals and nudges seen from memory, and sockets released.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "net/readiness_ring_internal.h"

namespace quarry::net::internal {
namespace {

using namespace std::chrono_literals;

class ReadinessRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    ring_ = ReadinessRing::Create(&why_not);
    if (ring_ == nullptr) GTEST_SKIP() << "no io_uring here: " << why_not;
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0);
  }
  void TearDown() override {
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }

  // Watches the ring without a system call, as an io thread does, for up to a second.
  bool RaisedWithin() const {
    const auto deadline = std::chrono::steady_clock::now() + 1s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (ring_->Raised()) return true;
    }
    return false;
  }

  std::shared_ptr<ReadinessRing> ring_;
  int fds_[2] = {-1, -1};
};

TEST_F(ReadinessRingTest, AnArrivalRaisesItAndSettlingClearsIt) {
  const std::uint64_t token = ring_->Watch(fds_[0]);
  ASSERT_NE(token, 0u);
  ring_->Settle();
  EXPECT_FALSE(ring_->Raised());
  // Written from another thread while this one only reads memory, as a client's request
  // comes while an io thread polls.
  std::thread writer([this] {
    std::this_thread::sleep_for(20ms);
    ASSERT_EQ(::write(fds_[1], "x", 1), 1);
  });
  EXPECT_TRUE(RaisedWithin());
  writer.join();
  // The thread looks for itself (a system call, which also lets the kernel finish the ring's
  // work), then settles: nothing new is raised.
  char byte;
  ASSERT_EQ(::read(fds_[0], &byte, 1), 1);
  ring_->Settle();
  EXPECT_FALSE(ring_->Raised());

  // It keeps watching: a second arrival raises it again.
  std::thread second([this] { ASSERT_EQ(::write(fds_[1], "y", 1), 1); });
  EXPECT_TRUE(RaisedWithin());
  second.join();
  ring_->Forget(token);
}

TEST_F(ReadinessRingTest, ANudgeRaisesIt) {
  ring_->Settle();
  std::thread nudger([this] { ring_->Nudge(); });
  nudger.join();
  EXPECT_TRUE(ring_->Raised());
  ring_->Settle();
  EXPECT_FALSE(ring_->Raised());
}

TEST_F(ReadinessRingTest, AForgottenSocketClosesForItsPeer) {
  const std::uint64_t token = ring_->Watch(fds_[0]);
  ASSERT_NE(token, 0u);
  ring_->Forget(token);
  ::close(fds_[0]);
  fds_[0] = -1;
  // The ring held a reference to the socket; once forgotten, the close reaches the peer.
  timeval timeout{2, 0};
  ASSERT_EQ(::setsockopt(fds_[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)), 0);
  char byte;
  EXPECT_EQ(::read(fds_[1], &byte, 1), 0);
}

TEST_F(ReadinessRingTest, ForgettingTwiceOrNothingIsHarmless) {
  const std::uint64_t token = ring_->Watch(fds_[0]);
  ring_->Forget(token);
  ring_->Forget(token);
  ring_->Forget(0);
  ring_->Settle();
  EXPECT_FALSE(ring_->Raised());
}

}  // namespace
}  // namespace quarry::net::internal
