// Process-wide network counters behind serverStatus's `network` and `connections` sections
// (named as in mongod's serverStatus output). net/ updates them; readers take a Snapshot.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "wire/compression.h"

namespace quarry::wire {

struct CompressorCounters {
  std::int64_t compressor_bytes_in = 0;     // uncompressed bytes given to the compressor
  std::int64_t compressor_bytes_out = 0;    // compressed bytes it produced
  std::int64_t decompressor_bytes_in = 0;   // compressed bytes received
  std::int64_t decompressor_bytes_out = 0;  // bytes they decompressed to
};

// A plain copy of the counters at one moment (each field read atomically, not all together).
struct NetworkCountersSnapshot {
  std::int64_t bytes_in = 0;           // logical: after decompression, headers included
  std::int64_t bytes_out = 0;          // logical: before compression
  std::int64_t physical_bytes_in = 0;  // socket bytes
  std::int64_t physical_bytes_out = 0;
  std::int64_t num_requests = 0;  // messages received
  CompressorCounters snappy;
  CompressorCounters zlib;
  CompressorCounters zstd;
  std::int64_t connections_current = 0;
  std::int64_t connections_total_created = 0;
  std::int64_t connections_rejected = 0;
  std::int64_t connections_limit = 0;  // the most connections accepted at once; 0: no limit

  // The counters of snappy, zlib or zstd; noop has none and yields zeros.
  CompressorCounters ForCompressor(Compressor compressor) const;
};

class NetworkCounters {
 public:
  void AddLogicalIn(std::int64_t bytes) { Add(bytes_in_, bytes); }
  void AddLogicalOut(std::int64_t bytes) { Add(bytes_out_, bytes); }
  void AddPhysicalIn(std::int64_t bytes) { Add(physical_bytes_in_, bytes); }
  void AddPhysicalOut(std::int64_t bytes) { Add(physical_bytes_out_, bytes); }
  void AddRequest() { Add(num_requests_, 1); }
  // Counts one compression: `in` uncompressed bytes became `out` bytes. Ignores noop.
  void AddCompressed(Compressor compressor, std::int64_t in, std::int64_t out);
  // Counts one decompression: `in` compressed bytes became `out` bytes. Ignores noop.
  void AddDecompressed(Compressor compressor, std::int64_t in, std::int64_t out);

  void ConnectionOpened() {
    Add(connections_current_, 1);
    Add(connections_total_created_, 1);
  }
  void ConnectionClosed() { Add(connections_current_, -1); }
  void ConnectionRejected() { Add(connections_rejected_, 1); }
  void SetConnectionLimit(std::int64_t limit) {
    connections_limit_.store(limit, std::memory_order_relaxed);
  }

  NetworkCountersSnapshot Snapshot() const;

 private:
  struct AtomicCompressorCounters {
    std::atomic<std::int64_t> compressor_bytes_in{0};
    std::atomic<std::int64_t> compressor_bytes_out{0};
    std::atomic<std::int64_t> decompressor_bytes_in{0};
    std::atomic<std::int64_t> decompressor_bytes_out{0};
  };
  static void Add(std::atomic<std::int64_t>& counter, std::int64_t delta) {
    counter.fetch_add(delta, std::memory_order_relaxed);
  }
  AtomicCompressorCounters* Slot(Compressor compressor);

  std::atomic<std::int64_t> bytes_in_{0};
  std::atomic<std::int64_t> bytes_out_{0};
  std::atomic<std::int64_t> physical_bytes_in_{0};
  std::atomic<std::int64_t> physical_bytes_out_{0};
  std::atomic<std::int64_t> num_requests_{0};
  std::array<AtomicCompressorCounters, 3> compressors_;  // snappy, zlib, zstd
  std::atomic<std::int64_t> connections_current_{0};
  std::atomic<std::int64_t> connections_total_created_{0};
  std::atomic<std::int64_t> connections_rejected_{0};
  std::atomic<std::int64_t> connections_limit_{0};
};

// The process's one instance.
NetworkCounters& GlobalNetworkCounters();

}  // namespace quarry::wire
