// Cells run store after store for the same workload and thread count, so the stores being
// compared are measured minutes apart at most on a machine whose load drifts.
#include "bench/ycsb/ycsb_run.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>

#include "bench/clients/timed_clients.h"
#include "bench/ycsb/inserted_keys.h"
#include "bench/ycsb/store_session.h"
#include "bench/ycsb/workload.h"

namespace quarry::bench {
namespace {

// Long enough for any load or warm-up: their clients stop when every record is in or read.
constexpr double kLoadSecondsLimit = 24 * 3600;

// A store under test and the keys it holds.
struct LoadedStore {
  std::string shown;
  StoreConnector connect;
  std::unique_ptr<InsertedKeys> keys;
  int pid = 0;  // whose CPU time a cell counts; 0: none
};

int ServerPidOf(const YcsbSettings& settings, const std::string& option) {
  if (option == "quarry") return settings.server_pid;
  if (option == "postgres") return settings.postgres_pid;
  if (option == "redis") return settings.redis_pid;
  return 0;
}

StoreConnector ConnectorFor(const YcsbSettings& settings, const std::string& option) {
  if (option == "quarry") {
    return [&settings] { return ConnectQuarryStore(settings.uri, settings.db); };
  }
  if (option == "postgres") {
    return [&settings] {
      return ConnectPostgresStore(settings.postgres_port, settings.postgres_user);
    };
  }
  return [&settings] { return ConnectRedisStore(settings.redis_port); };
}

std::string Describe(const CellResult& cell) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %s, %d thread%s: %.0f ops/s, p99 %.0f us, %lld failed",
                cell.system.c_str(), cell.workload.c_str(), cell.threads,
                cell.threads == 1 ? "" : "s", cell.latency.ops_per_second, cell.latency.p99_micros,
                static_cast<long long>(cell.failed_checks));
  return text;
}

StatusWith<CellResult> Load(const YcsbSettings& settings, LoadedStore& store) {
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<StoreSession> admin, store.connect());
  QUARRY_RETURN_IF_ERROR(admin->Reset());
  std::atomic<std::uint64_t> next_key{0};
  QUARRY_ASSIGN_OR_RETURN(
      MeasuredRow row,
      RunTimedClientsMeasuringCpu(LoadClients(store.connect, settings.records, &next_key),
                                  settings.load_threads, kLoadSecondsLimit, store.pid));
  store.keys = std::make_unique<InsertedKeys>(settings.records);
  return CellResult{kLoad, settings.load_threads, store.shown,           row.latency,
                    0,     row.cpu_seconds,       row.client_cpu_seconds};
}

StatusWith<CellResult> WarmUp(const YcsbSettings& settings, const LoadedStore& store) {
  std::atomic<std::uint64_t> next_key{0};
  std::atomic<std::int64_t> failed_checks{0};
  QUARRY_ASSIGN_OR_RETURN(
      MeasuredRow row,
      RunTimedClientsMeasuringCpu(
          WarmUpClients(store.connect, settings.records, &next_key, &failed_checks),
          settings.load_threads, kLoadSecondsLimit, store.pid));
  return CellResult{
      kWarmUp,         settings.load_threads, store.shown, row.latency, failed_checks.load(),
      row.cpu_seconds, row.client_cpu_seconds};
}

}  // namespace

const std::vector<SystemName>& SystemNames() {
  static const std::vector<SystemName> names = {
      {"quarry", kQuarry}, {"postgres", kPostgres}, {"redis", kRedis}};
  return names;
}

StatusWith<std::vector<CellResult>> RunYcsb(
    const YcsbSettings& settings, const std::function<void(const std::string&)>& progress) {
  std::vector<LoadedStore> stores;
  for (const SystemName& name : SystemNames()) {
    if (std::find(settings.systems.begin(), settings.systems.end(), name.option) !=
        settings.systems.end()) {
      stores.push_back({name.shown, ConnectorFor(settings, name.option), nullptr,
                        ServerPidOf(settings, name.option)});
    }
  }
  std::vector<CellResult> results;
  for (LoadedStore& store : stores) {
    progress("loading " + std::to_string(settings.records) + " records into " + store.shown);
    QUARRY_ASSIGN_OR_RETURN(CellResult loaded, Load(settings, store));
    progress(Describe(loaded));
    results.push_back(std::move(loaded));
  }
  for (const LoadedStore& store : stores) {
    if (!settings.warm_up) break;
    progress("reading every record of " + store.shown + " once");
    QUARRY_ASSIGN_OR_RETURN(CellResult warmed, WarmUp(settings, store));
    progress(Describe(warmed));
    results.push_back(std::move(warmed));
  }
  for (const WorkloadSpec& workload : CoreWorkloads()) {
    if (std::find(settings.workloads.begin(), settings.workloads.end(), workload.name) ==
        settings.workloads.end()) {
      continue;
    }
    for (int threads : settings.threads) {
      for (LoadedStore& store : stores) {
        std::atomic<std::int64_t> failed_checks{0};
        QUARRY_ASSIGN_OR_RETURN(
            MeasuredRow row,
            RunTimedClientsMeasuringCpu(
                WorkloadClients(store.connect, workload, store.keys.get(), &failed_checks), threads,
                settings.seconds, store.pid));
        results.push_back({workload.name, threads, store.shown, row.latency, failed_checks.load(),
                           row.cpu_seconds, row.client_cpu_seconds});
        progress(Describe(results.back()));
      }
    }
  }
  return results;
}

}  // namespace quarry::bench
