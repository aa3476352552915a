#include "commands/latency_histogram.h"

#include <algorithm>
#include <string>

namespace quarry::commands {

const std::array<std::int64_t, LatencyHistogram::kBuckets>& LatencyHistogram::LowerBounds() {
  static const std::array<std::int64_t, kBuckets> bounds = [] {
    std::array<std::int64_t, kBuckets> out{};
    std::size_t i = 0;
    out[i++] = 0;
    for (int power = 1; power <= 10; ++power) out[i++] = std::int64_t{1} << power;
    for (int power = 11; power <= 20; ++power) {
      out[i++] = std::int64_t{1} << power;
      out[i++] = std::int64_t{3} << (power - 1);
    }
    for (int power = 21; power <= 40; ++power) out[i++] = std::int64_t{1} << power;
    return out;
  }();
  return bounds;
}

void LatencyHistogram::Add(std::int64_t micros) {
  micros = std::max<std::int64_t>(micros, 0);
  const auto& bounds = LowerBounds();
  const std::size_t bucket =
      static_cast<std::size_t>(std::upper_bound(bounds.begin(), bounds.end(), micros) -
                               bounds.begin()) -
      1;
  micros_.fetch_add(micros, std::memory_order_relaxed);
  ops_.fetch_add(1, std::memory_order_relaxed);
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
}

LatencyHistogram::Figures LatencyHistogram::Read() const {
  Figures figures;
  figures.micros = micros_.load(std::memory_order_relaxed);
  figures.ops = ops_.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < kBuckets; ++i) {
    figures.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
  }
  return figures;
}

void AppendLatency(std::string_view name, const LatencyHistogram::Figures& figures, bool histograms,
                   bool encryption_field, bson::DocumentBuilder* b) {
  b->OpenDocument(name);
  if (histograms) {
    b->OpenArray("histogram");
    std::size_t n = 0;
    for (std::size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
      if (figures.buckets[i] == 0) continue;
      b->OpenDocument(std::to_string(n++))
          .AppendInt64("micros", LatencyHistogram::LowerBounds()[i])
          .AppendInt64("count", figures.buckets[i])
          .Close();
    }
    b->Close();
  }
  b->AppendInt64("latency", figures.micros).AppendInt64("ops", figures.ops);
  if (encryption_field) b->AppendInt64("queryableEncryptionLatencyMicros", 0);
  b->Close();
}

}  // namespace quarry::commands
