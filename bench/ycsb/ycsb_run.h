// The YCSB comparison as a whole: load the records into each store, then run every chosen
// workload at every thread count on each store in turn, one cell after another.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bench/clients/latency.h"

namespace quarry::bench {

// The stores, as --systems names them and as the table shows them.
struct SystemName {
  std::string option;  // "postgres"
  std::string shown;   // "PostgreSQL-JSONB"
};
const std::vector<SystemName>& SystemNames();
inline constexpr const char* kQuarry = "Quarry";
inline constexpr const char* kPostgres = "PostgreSQL-JSONB";
inline constexpr const char* kRedis = "Redis";
// The workload names of the load rows and of the warm-up rows (every record read once).
inline constexpr const char* kLoad = "load";
inline constexpr const char* kWarmUp = "warm-up";

struct YcsbSettings {
  std::string uri;          // Quarry
  std::string db = "ycsb";  // Quarry's database
  int redis_port = 0;       // 127.0.0.1
  int postgres_port = 0;    // 127.0.0.1
  std::string postgres_user = "ycsb";
  std::uint64_t records = 100'000;
  double seconds = 5;  // per cell
  std::vector<int> threads = {1, 4, 16};
  int load_threads = 4;  // and warm-up threads
  bool warm_up = true;   // read every record once after the load, before the workloads
  std::vector<std::string> workloads = {"A", "B", "C", "D", "E", "F"};
  std::vector<std::string> systems = {"quarry", "postgres", "redis"};  // SystemName::option
  // Each server's process, for its CPU time per operation (a PostgreSQL server's with its
  // backends'); 0: not measured.
  int server_pid = 0;    // quarryd
  int postgres_pid = 0;  // the postmaster
  int redis_pid = 0;
};

// What one cell (or one store's load) measured.
struct CellResult {
  std::string workload;  // "A" .. "F", kLoad or kWarmUp
  int threads = 0;
  std::string system;  // SystemName::shown
  LatencySummary latency;
  std::int64_t failed_checks = 0;
  // The store's server CPU seconds over the cell when its process is known
  // (YcsbSettings::server_pid, postgres_pid, redis_pid); else -1.
  double server_cpu_seconds = -1;
  // This process's CPU seconds over the cell: the store's client library and the workload.
  double client_cpu_seconds = -1;
};

// Loads settings.records records into each store in settings.systems, reads each record once
// (with settings.warm_up), then runs each workload
// of settings.workloads in YCSB's order (CoreWorkloads()) at each thread count on each store,
// on the same data set throughout. Results come in that order, the loads and warm-ups first.
// `progress` gets a line as each step starts and ends. Fails on the first error of any store.
StatusWith<std::vector<CellResult>> RunYcsb(
    const YcsbSettings& settings, const std::function<void(const std::string&)>& progress);

}  // namespace quarry::bench
