// mongod's operation latency histogram ($collStats' latencyStats): the latencies of a class of
// operations in microseconds, summed, counted, and counted in buckets. The buckets' lower
// bounds are 0 and the powers of two up to 1024, then each power of two from 2^11 to 2^20 and
// the midpoint above it, then the powers of two from 2^21 to 2^40, as in mongod.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "bson/builder.h"

namespace quarry::commands {

class LatencyHistogram {
 public:
  static constexpr std::size_t kBuckets = 51;
  static const std::array<std::int64_t, kBuckets>& LowerBounds();

  struct Figures {
    std::int64_t micros = 0;
    std::int64_t ops = 0;
    std::array<std::int64_t, kBuckets> buckets{};
  };

  void Add(std::int64_t micros);  // thread-safe
  Figures Read() const;

 private:
  std::atomic<std::int64_t> micros_{0};
  std::atomic<std::int64_t> ops_{0};
  std::array<std::atomic<std::int64_t>, kBuckets> buckets_{};
};

// {histogram: [{micros, count}, ...] (the non-empty buckets, with `histograms`), latency, ops}
// under `name`, with `queryableEncryptionLatencyMicros: 0` after them when `encryption_field`
// (mongod's reads and writes carry it).
void AppendLatency(std::string_view name, const LatencyHistogram::Figures& figures, bool histograms,
                   bool encryption_field, bson::DocumentBuilder* b);

}  // namespace quarry::commands
