// YCSB's core workloads A-F as operation mixes, and the client threads that run them (or load
// the records) against one store.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/clients/timed_clients.h"
#include "bench/ycsb/inserted_keys.h"
#include "bench/ycsb/store_session.h"

namespace quarry::bench {

enum class KeyChoice { kScrambledZipfian, kLatest };

// Shares of each operation, summing to 1.
struct WorkloadSpec {
  std::string name;         // "A"
  std::string description;  // "50% read / 50% update"
  double read = 0;
  double update = 0;
  double insert = 0;
  double scan = 0;
  double read_modify_write = 0;
  KeyChoice key_choice = KeyChoice::kScrambledZipfian;
};

// Workloads A-F in the order YCSB recommends running them on one data set: A, B, C, F, D, E
// (D and E insert, so they come last).
const std::vector<WorkloadSpec>& CoreWorkloads();

// The longest scan; each scan's length is uniform in [1, kMaxScanLength].
inline constexpr int kMaxScanLength = 100;

// Clients that insert keys [0, records) with random records, each key once, until all are in.
ClientFactory LoadClients(StoreConnector connect, std::uint64_t records,
                          std::atomic<std::uint64_t>* next_key);

// Clients that read keys [0, records) once each, in order, until all are read; a read that
// does not return a whole record is counted in `*failed_checks`. They bring every store's
// caches to the same warm start before the workloads, whichever runs first.
ClientFactory WarmUpClients(StoreConnector connect, std::uint64_t records,
                            std::atomic<std::uint64_t>* next_key,
                            std::atomic<std::int64_t>* failed_checks);

// Clients that run `workload` over `keys`; an answer that fails its check (a read or scan
// that did not return whole records, an update or read-modify-write that found no record) is
// counted in `*failed_checks` and the clients go on.
ClientFactory WorkloadClients(StoreConnector connect, const WorkloadSpec& workload,
                              InsertedKeys* keys, std::atomic<std::int64_t>* failed_checks);

}  // namespace quarry::bench
