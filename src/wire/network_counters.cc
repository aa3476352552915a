// Network counters: relaxed atomics, since readers only need each value to be eventually right.
#include "wire/network_counters.h"

namespace quarry::wire {
namespace {

CompressorCounters Load(const std::atomic<std::int64_t>& a, const std::atomic<std::int64_t>& b,
                        const std::atomic<std::int64_t>& c, const std::atomic<std::int64_t>& d) {
  CompressorCounters out;
  out.compressor_bytes_in = a.load(std::memory_order_relaxed);
  out.compressor_bytes_out = b.load(std::memory_order_relaxed);
  out.decompressor_bytes_in = c.load(std::memory_order_relaxed);
  out.decompressor_bytes_out = d.load(std::memory_order_relaxed);
  return out;
}

}  // namespace

CompressorCounters NetworkCountersSnapshot::ForCompressor(Compressor compressor) const {
  switch (compressor) {
    case Compressor::kSnappy:
      return snappy;
    case Compressor::kZlib:
      return zlib;
    case Compressor::kZstd:
      return zstd;
    case Compressor::kNoop:
      break;
  }
  return {};
}

NetworkCounters::AtomicCompressorCounters* NetworkCounters::Slot(Compressor compressor) {
  switch (compressor) {
    case Compressor::kSnappy:
      return &compressors_[0];
    case Compressor::kZlib:
      return &compressors_[1];
    case Compressor::kZstd:
      return &compressors_[2];
    case Compressor::kNoop:
      break;
  }
  return nullptr;
}

void NetworkCounters::AddCompressed(Compressor compressor, std::int64_t in, std::int64_t out) {
  if (AtomicCompressorCounters* slot = Slot(compressor)) {
    Add(slot->compressor_bytes_in, in);
    Add(slot->compressor_bytes_out, out);
  }
}

void NetworkCounters::AddDecompressed(Compressor compressor, std::int64_t in, std::int64_t out) {
  if (AtomicCompressorCounters* slot = Slot(compressor)) {
    Add(slot->decompressor_bytes_in, in);
    Add(slot->decompressor_bytes_out, out);
  }
}

NetworkCountersSnapshot NetworkCounters::Snapshot() const {
  NetworkCountersSnapshot s;
  s.bytes_in = bytes_in_.load(std::memory_order_relaxed);
  s.bytes_out = bytes_out_.load(std::memory_order_relaxed);
  s.physical_bytes_in = physical_bytes_in_.load(std::memory_order_relaxed);
  s.physical_bytes_out = physical_bytes_out_.load(std::memory_order_relaxed);
  s.num_requests = num_requests_.load(std::memory_order_relaxed);
  CompressorCounters* targets[] = {&s.snappy, &s.zlib, &s.zstd};
  for (std::size_t slot_idx = 0; slot_idx < compressors_.size(); ++slot_idx) {
    const AtomicCompressorCounters& c = compressors_[slot_idx];
    *targets[slot_idx] = Load(c.compressor_bytes_in, c.compressor_bytes_out,
                              c.decompressor_bytes_in, c.decompressor_bytes_out);
  }
  s.connections_current = connections_current_.load(std::memory_order_relaxed);
  s.connections_total_created = connections_total_created_.load(std::memory_order_relaxed);
  s.connections_rejected = connections_rejected_.load(std::memory_order_relaxed);
  s.connections_limit = connections_limit_.load(std::memory_order_relaxed);
  return s;
}

NetworkCounters& GlobalNetworkCounters() {
  static NetworkCounters* counters = new NetworkCounters();  // never destroyed: io threads may
                                                             // count during static teardown
  return *counters;
}

}  // namespace quarry::wire
