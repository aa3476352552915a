// What blocking stages wrote to disk: per stage for explain (usedDisk, spills,
// spilledDataStorageSize, spilledRecords) and per server for serverStatus' metrics.query.
#pragma once

#include <atomic>
#include <cstdint>

namespace quarry::query {

struct SpillStats {
  std::int64_t spills = 0;           // runs written
  std::int64_t spilled_bytes = 0;    // their size on disk
  std::int64_t spilled_records = 0;  // documents (sorts) or partial groups ($group) in them
  bool used_disk() const { return spills > 0; }
};

// The server's totals since start-up, as mongod's metrics.query.sort and metrics.query.group.
struct SpillCounters {
  std::atomic<std::int64_t> spills{0};
  std::atomic<std::int64_t> spilled_bytes{0};
  std::atomic<std::int64_t> spilled_records{0};

  void Add(const SpillStats& run) {
    spills.fetch_add(run.spills, std::memory_order_relaxed);
    spilled_bytes.fetch_add(run.spilled_bytes, std::memory_order_relaxed);
    spilled_records.fetch_add(run.spilled_records, std::memory_order_relaxed);
  }
};

// Sorts ($sort, find's SORT) and $group count here.
SpillCounters& SortSpillCounters();
SpillCounters& GroupSpillCounters();

}  // namespace quarry::query
