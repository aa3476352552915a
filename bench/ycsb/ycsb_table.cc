// Ratios are computed per cell (same workload, same thread count), never across cells, so a
// noisy minute on the machine touches both sides of a ratio alike.
#include "bench/ycsb/ycsb_table.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/ycsb/workload.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

// The ops/s of `system` in the cell of `quarry`, or 0 when that store did not run it.
// `seconds` of CPU over the cell per operation, in microseconds; empty when not measured.
tc::Cell MicrosPerOp(double seconds, const CellResult& cell) {
  if (seconds < 0 || cell.latency.ops <= 0) return {};
  return seconds * 1e6 / static_cast<double>(cell.latency.ops);
}

double RateInSameCell(const std::vector<CellResult>& results, const CellResult& quarry,
                      const std::string& system) {
  for (const CellResult& other : results) {
    if (other.system == system && other.workload == quarry.workload &&
        other.threads == quarry.threads) {
      return other.latency.ops_per_second;
    }
  }
  return 0;
}

// Collects one goal's cells and words its verdict.
class Goal {
 public:
  explicit Goal(std::string wording) : wording_(std::move(wording)) {}

  void Check(const CellResult& cell, double ratio, bool met) {
    ++checked_;
    if (met) return;
    char text[64];
    std::snprintf(text, sizeof text, "%s%s at %d thread%s: %.2f", missed_.empty() ? "" : ", ",
                  cell.workload.c_str(), cell.threads, cell.threads == 1 ? "" : "s", ratio);
    missed_ += text;
  }

  std::string Line() const {
    const std::string verdict = checked_ == 0     ? "not measured"
                                : missed_.empty() ? "met"
                                                  : "MISSED (" + missed_ + ")";
    return "goal: " + wording_ + ": " + verdict;
  }

 private:
  std::string wording_;
  int checked_ = 0;
  std::string missed_;
};

// The workloads of `settings` in the order they ran.
std::string WorkloadList(const YcsbSettings& settings) {
  std::string text = "workloads, run in this order on one data set per store, loaded once: ";
  bool first = true;
  for (const WorkloadSpec& workload : CoreWorkloads()) {
    if (std::find(settings.workloads.begin(), settings.workloads.end(), workload.name) ==
        settings.workloads.end()) {
      continue;
    }
    text += (first ? "" : "; ") + workload.name + " " + workload.description;
    first = false;
  }
  return text + ". D and E insert, so the data set grows through them.";
}

}  // namespace

tc::ResultTable YcsbTable(const YcsbSettings& settings, const std::vector<CellResult>& results) {
  tc::ResultTable table;
  table.benchmark = "ycsb";
  // Short enough for the chart's width.
  table.title = "YCSB A-F: Quarry vs PostgreSQL-JSONB vs Redis, a connection per client thread";
  char fields[48];
  std::snprintf(fields, sizeof fields, "%d x %zu bytes", kFieldCount, kFieldBytes);
  table.parameters = {{"records", static_cast<std::int64_t>(settings.records)},
                      {"fields", std::string(fields)},
                      {"key choice", std::string("scrambled Zipfian 0.99 (D: latest)")},
                      {"scan length", std::string("uniform 1..100")},
                      {"seconds per cell", settings.seconds},
                      {"load threads", static_cast<std::int64_t>(settings.load_threads)}};
  table.columns = {{"workload", "workload"},
                   {"threads", "threads"},
                   {"system", "system"},
                   {"ops", "ops"},
                   {"ops/s", "ops_per_second", 0},
                   {"p50 us", "p50_micros", 0},
                   {"p99 us", "p99_micros", 0},
                   {"failed checks", "failed_checks"},
                   {"server CPU us/op", "server_cpu_micros_per_op", 1},
                   {"client CPU us/op", "client_cpu_micros_per_op", 1},
                   {"vs PostgreSQL", "ratio_to_postgres", 2},
                   {"vs Redis", "ratio_to_redis", 2}};
  Goal ahead_of_postgres("Quarry ahead of PostgreSQL-JSONB on every workload and thread count");
  char redis_wording[96];
  std::snprintf(redis_wording, sizeof redis_wording,
                "Quarry >= %.2f x Redis's ops/s on A, B, C, D and F", kMinShareOfRedis);
  Goal near_redis(redis_wording);
  const std::string redis_goal_workloads = kRedisGoalWorkloads;
  for (const CellResult& cell : results) {
    tc::Cell to_postgres;
    tc::Cell to_redis;
    if (cell.system == kQuarry) {
      const double quarry = cell.latency.ops_per_second;
      const double postgres = RateInSameCell(results, cell, kPostgres);
      const double redis = RateInSameCell(results, cell, kRedis);
      const bool is_workload = cell.workload != kLoad && cell.workload != kWarmUp;
      if (postgres > 0) {
        to_postgres = quarry / postgres;
        if (is_workload) ahead_of_postgres.Check(cell, quarry / postgres, quarry > postgres);
      }
      if (redis > 0) {
        to_redis = quarry / redis;
        if (is_workload && redis_goal_workloads.find(cell.workload) != std::string::npos) {
          near_redis.Check(cell, quarry / redis, quarry >= kMinShareOfRedis * redis);
        }
      }
    }
    table.rows.push_back({cell.workload, static_cast<std::int64_t>(cell.threads), cell.system,
                          cell.latency.ops, cell.latency.ops_per_second, cell.latency.p50_micros,
                          cell.latency.p99_micros, cell.failed_checks,
                          MicrosPerOp(cell.server_cpu_seconds, cell),
                          MicrosPerOp(cell.client_cpu_seconds, cell), to_postgres, to_redis});
  }
  table.notes = {
      WorkloadList(settings),
      "load rows: one insert per record from the load threads, timed until the last is in.",
      settings.warm_up
          ? "warm-up rows: after the loads, one read of each record in key order from the load "
            "threads, so that every store starts the workloads with its caches warmed alike."
          : "no warm-up: the workloads ran right after the loads (--no-warm-up), so the first "
            "cells also measure caches filling.",
      "durability: Quarry acknowledges with w:1 (the default; no wait for the journal), "
      "PostgreSQL runs with synchronous_commit = off (commits do not wait for the WAL flush), "
      "Redis keeps no RDB or AOF (as bench/ycsb/run.sh starts them).",
      "failed checks: reads and scans that did not return whole records (10 fields of 100 "
      "bytes, scans in key order), updates and read-modify-writes that found no record; "
      "should be 0.",
      "vs PostgreSQL, vs Redis: Quarry's ops/s over that store's in the same cell.",
      "server CPU us/op: the server's CPU time over the cell per operation: quarryd's (all its "
      "threads, RocksDB's background work included) with --server-pid, PostgreSQL's postmaster "
      "and backends' with --postgres-pid, redis-server's with --redis-pid.",
      "client CPU us/op: the benchmark's own CPU time over the cell per operation: the "
      "workload and the store's client library (libmongoc, libpq, hiredis).",
      ahead_of_postgres.Line(),
      near_redis.Line()};
  return table;
}

tc::ChartOptions YcsbChart(const tc::ResultTable& table) {
  return {.label_columns = {table.ColumnIndex("system"), table.ColumnIndex("workload"),
                            table.ColumnIndex("threads")},
          .value_columns = {table.ColumnIndex("ops_per_second"), table.ColumnIndex("p99_micros")}};
}

}  // namespace quarry::bench
