#include "wire/network_counters.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace quarry::wire {
namespace {

TEST(NetworkCountersTest, SnapshotReflectsEveryCounter) {
  NetworkCounters counters;
  counters.AddLogicalIn(100);
  counters.AddPhysicalIn(60);
  counters.AddLogicalOut(200);
  counters.AddPhysicalOut(90);
  counters.AddRequest();
  counters.AddRequest();
  counters.AddCompressed(Compressor::kZstd, 200, 80);
  counters.AddDecompressed(Compressor::kSnappy, 44, 84);
  counters.AddCompressed(Compressor::kNoop, 5, 5);
  counters.ConnectionOpened();
  counters.ConnectionOpened();
  counters.ConnectionClosed();
  counters.ConnectionRejected();

  NetworkCountersSnapshot s = counters.Snapshot();
  EXPECT_EQ(s.bytes_in, 100);
  EXPECT_EQ(s.physical_bytes_in, 60);
  EXPECT_EQ(s.bytes_out, 200);
  EXPECT_EQ(s.physical_bytes_out, 90);
  EXPECT_EQ(s.num_requests, 2);
  EXPECT_EQ(s.zstd.compressor_bytes_in, 200);
  EXPECT_EQ(s.zstd.compressor_bytes_out, 80);
  EXPECT_EQ(s.snappy.decompressor_bytes_in, 44);
  EXPECT_EQ(s.snappy.decompressor_bytes_out, 84);
  EXPECT_EQ(s.zlib.compressor_bytes_in, 0);
  EXPECT_EQ(s.ForCompressor(Compressor::kZstd).compressor_bytes_out, 80);
  EXPECT_EQ(s.ForCompressor(Compressor::kNoop).compressor_bytes_in, 0);
  EXPECT_EQ(s.connections_current, 1);
  EXPECT_EQ(s.connections_total_created, 2);
  EXPECT_EQ(s.connections_rejected, 1);
}

TEST(NetworkCountersTest, ConcurrentUpdatesAreNotLost) {
  NetworkCounters counters;
  std::vector<std::thread> threads;
  for (int thread_idx = 0; thread_idx < 4; ++thread_idx) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        counters.AddLogicalIn(1);
        counters.AddRequest();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counters.Snapshot().bytes_in, 40000);
  EXPECT_EQ(counters.Snapshot().num_requests, 40000);
}

TEST(NetworkCountersTest, GlobalInstanceIsASingleton) {
  EXPECT_EQ(&GlobalNetworkCounters(), &GlobalNetworkCounters());
}

}  // namespace
}  // namespace quarry::wire
