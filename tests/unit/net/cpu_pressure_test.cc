// Reading Linux's CPU pressure figure to decide whether io threads may poll.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "net/cpu_pressure_internal.h"

namespace quarry::net::internal {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class CpuPressureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/quarry_cpu_pressure_XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = path;
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // The file as Linux writes it, with `some_total` microseconds of waiting so far.
  void Write(long long some_total) {
    std::ofstream out(path_, std::ios::trunc);
    out << "some avg10=0.00 avg60=0.00 avg300=0.00 total=" << some_total << "\n"
        << "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
  }

  std::string path_;
};

TEST_F(CpuPressureTest, ContendedWhenThreadsWaitedForMoreThanAFifthOfTheInterval) {
  const Clock::time_point start = Clock::now();
  Write(1000000);
  CpuPressure pressure(path_.c_str());
  pressure.Refresh(start);
  EXPECT_FALSE(pressure.Contended());  // one reading is no interval yet

  Write(1000000 + 50000);  // 50 ms of waiting in 100 ms
  pressure.Refresh(start + 100ms);
  EXPECT_TRUE(pressure.Contended());

  Write(1000000 + 50000 + 5000);  // 5 ms in the next 100 ms
  pressure.Refresh(start + 200ms);
  EXPECT_FALSE(pressure.Contended());
}

TEST_F(CpuPressureTest, ReadsAtMostOncePerInterval) {
  const Clock::time_point start = Clock::now();
  Write(0);
  CpuPressure pressure(path_.c_str());
  pressure.Refresh(start);
  Write(90000);
  pressure.Refresh(start + 10ms);  // too soon: not read
  EXPECT_FALSE(pressure.Contended());
  pressure.Refresh(start + CpuPressure::kInterval);
  EXPECT_TRUE(pressure.Contended());
}

TEST_F(CpuPressureTest, AMissingFigureNeverCountsAsContended) {
  CpuPressure pressure("/nonexistent/pressure/cpu");
  pressure.Refresh(Clock::now());
  pressure.Refresh(Clock::now() + 1s);
  EXPECT_FALSE(pressure.Contended());
}

}  // namespace
}  // namespace quarry::net::internal
