// ycsb_bench: YCSB's core workloads against Quarry, PostgreSQL-JSONB and Redis in one table.
//   ycsb_bench --uri URI --redis-port PORT --postgres-port PORT [--records 100000] [--seconds 5]
//              [--threads 1,4,16] [--workloads A,B,C,D,E,F] [--systems quarry,postgres,redis]
//              [--quick] [--json] [--chart FILE.svg]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/ycsb/workload.h"
#include "bench/ycsb/ycsb_run.h"
#include "bench/ycsb/ycsb_table.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"

namespace {

namespace qb = quarry::bench;
namespace tc = quarry::tools::client;

// Progress goes to stderr, so stdout holds only the table.
void Say(const std::string& line) {
  std::fprintf(stderr, "ycsb_bench: %s\n", line.c_str());
  std::fflush(stderr);
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The first of `given` that is not among `known`, or "" when all are.
std::string FirstUnknown(const std::vector<std::string>& given,
                         const std::vector<std::string>& known) {
  for (const std::string& name : given) {
    if (!Contains(known, name)) return name;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  qb::YcsbSettings settings;
  settings.uri = "mongodb://127.0.0.1:27017";
  bool quick = false;
  bool json_output = false;
  std::string chart;
  CLI::App app{"ycsb_bench: YCSB workloads A-F against Quarry, PostgreSQL-JSONB and Redis"};
  app.add_option("--uri", settings.uri, "Quarry server to measure")->capture_default_str();
  app.add_option("--redis-port", settings.redis_port, "Redis on 127.0.0.1");
  app.add_option("--postgres-port", settings.postgres_port, "PostgreSQL on 127.0.0.1");
  app.add_option("--postgres-user", settings.postgres_user, "PostgreSQL role to connect as")
      ->capture_default_str();
  app.add_option("--records", settings.records, "records loaded into each store")
      ->capture_default_str();
  app.add_option("--seconds", settings.seconds, "duration of each cell")->capture_default_str();
  app.add_option("--threads", settings.threads, "client thread counts")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--load-threads", settings.load_threads,
                 "client threads of the load and of the warm-up")
      ->capture_default_str();
  bool no_warm_up = false;
  app.add_flag("--no-warm-up", no_warm_up,
               "run the workloads right after the load, without first reading every record once");
  app.add_option("--workloads", settings.workloads, "workloads, run in YCSB's order A B C F D E")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--systems", settings.systems, "stores: quarry, postgres, redis")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--server-pid", settings.server_pid,
                 "quarryd's PID (bench/run_with_redis.sh passes it): its CPU time per operation");
  app.add_option("--postgres-pid", settings.postgres_pid,
                 "the postmaster's PID (bench/ycsb/run.sh passes it): its and its backends' CPU "
                 "time per operation");
  app.add_option("--redis-pid", settings.redis_pid,
                 "redis-server's PID (bench/ycsb/run.sh passes it): its CPU time per operation");
  app.add_flag("--quick", quick, "2,000 records and 0.3 s cells unless given, to check it runs");
  app.add_flag("--json", json_output, "print the table as one JSON line");
  app.add_option("--chart", chart, "also draw the table as an SVG bar chart here");
  try {
    app.parse(argc, argv);
    settings.warm_up = !no_warm_up;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "ycsb_bench: %s (see --help)\n", e.what());
    return 2;
  }
  if (quick) {
    // Options given explicitly keep their values.
    if (app.count("--records") == 0) settings.records = 2'000;
    if (app.count("--seconds") == 0) settings.seconds = 0.3;
  }

  std::vector<std::string> workloads;
  for (const qb::WorkloadSpec& workload : qb::CoreWorkloads()) workloads.push_back(workload.name);
  std::vector<std::string> systems;
  for (const qb::SystemName& name : qb::SystemNames()) systems.push_back(name.option);
  if (const std::string unknown = FirstUnknown(settings.workloads, workloads); !unknown.empty()) {
    std::fprintf(stderr, "ycsb_bench: no workload %s (A-F)\n", unknown.c_str());
    return 2;
  }
  if (const std::string unknown = FirstUnknown(settings.systems, systems); !unknown.empty()) {
    std::fprintf(stderr, "ycsb_bench: no system %s (quarry, postgres, redis)\n", unknown.c_str());
    return 2;
  }
  const bool valid_threads =
      !settings.threads.empty() &&
      std::all_of(settings.threads.begin(), settings.threads.end(), [](int t) { return t > 0; });
  if (!valid_threads || settings.records == 0 || settings.seconds <= 0 ||
      settings.load_threads < 1 || settings.workloads.empty() || settings.systems.empty()) {
    std::fprintf(stderr,
                 "ycsb_bench: needs --threads, --records, --seconds and --load-threads above 0 "
                 "and at least one workload and system\n");
    return 2;
  }
  if ((Contains(settings.systems, "redis") && settings.redis_port == 0) ||
      (Contains(settings.systems, "postgres") && settings.postgres_port == 0)) {
    std::fprintf(stderr, "ycsb_bench: redis needs --redis-port, postgres --postgres-port\n");
    return 2;
  }

  quarry::StatusWith<std::vector<qb::CellResult>> results = qb::RunYcsb(settings, Say);
  if (!results.ok()) {
    std::fprintf(stderr, "ycsb_bench: %s\n", results.status().ToString().c_str());
    return 1;
  }
  const tc::ResultTable table = qb::YcsbTable(settings, results.value());
  const std::string text = json_output ? tc::FormatJson(table) + "\n" : tc::FormatText(table);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (!chart.empty()) {
    const quarry::Status written = tc::WriteBarChartSvg(table, qb::YcsbChart(table), chart);
    if (!written.ok()) {
      std::fprintf(stderr, "ycsb_bench: chart: %s\n", written.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
