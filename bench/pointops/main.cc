// pointops_bench: small requests against Redis in one run, many clients, and short requests
// beside slow ones.
//   pointops_bench --uri URI [--redis-port PORT] [--server-pid PID] [--redis-pid PID]
//                  [--seconds 5] [--threads 1,4] [--bulk-documents 100000]
//                  [--big-documents 200000] [--strace] [--quick]
//                  [--json]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/pointops/parts.h"
#include "tools/client/result_table.h"

namespace {

namespace qb = quarry::bench;
namespace tc = quarry::tools::client;

bool json_output = false;

void Print(const tc::ResultTable& table) {
  const std::string text = json_output ? tc::FormatJson(table) : tc::FormatText(table);
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

// Progress goes to stderr, so stdout holds only the tables.
void Say(const std::string& line) {
  std::fprintf(stderr, "pointops_bench: %s\n", line.c_str());
  std::fflush(stderr);
}

tc::ResultTable OrExit(quarry::StatusWith<tc::ResultTable> result, const char* what) {
  if (!result.ok()) {
    std::fprintf(stderr, "pointops_bench: %s: %s\n", what, result.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(result).value();
}

}  // namespace

int main(int argc, char** argv) {
  qb::PointOpsSettings settings;
  settings.uri = "mongodb://127.0.0.1:27017";
  bool quick = false;
  CLI::App app{"pointops_bench: point operations against Redis, many clients, slow neighbours"};
  app.add_option("--uri", settings.uri, "server to measure")->capture_default_str();
  app.add_option("--redis-port", settings.redis_port,
                 "Redis on 127.0.0.1 to compare with (0: no Redis rows)")
      ->capture_default_str();
  app.add_option("--server-pid", settings.server_pid,
                 "PID of the server on this machine, for its CPU time and --strace (0: none)")
      ->capture_default_str();
  app.add_option("--redis-pid", settings.redis_pid, "PID of redis-server, for its CPU time")
      ->capture_default_str();
  app.add_option("--seconds", settings.seconds, "duration of each timed row")
      ->capture_default_str();
  app.add_option("--threads", settings.threads, "client threads of the key-value rows")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--value-bytes", settings.value_bytes, "value sizes of the key-value rows")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--max-keys", settings.max_keys, "keys written at most by one write row")
      ->capture_default_str();
  app.add_option("--many-clients", settings.many_clients, "clients of the many-clients row")
      ->capture_default_str();
  app.add_option("--bulk-documents", settings.bulk_documents,
                 "documents of the bulk load between the after-bulk rows")
      ->capture_default_str();
  app.add_option("--big-documents", settings.big_documents, "documents the slow commands scan")
      ->capture_default_str();
  app.add_option("--big-document-bytes", settings.big_document_bytes,
                 "BSON bytes per document the slow commands scan")
      ->capture_default_str();
  app.add_option("--slow-clients", settings.slow_clients_per_kind,
                 "clients running each kind of slow command")
      ->capture_default_str();
  app.add_flag("--strace", settings.strace,
               "count the server's system calls per find {_id} with strace (needs --server-pid)");
  app.add_option("--strace-seconds", settings.strace_seconds, "duration of the strace row")
      ->capture_default_str();
  app.add_flag(
      "--quick", quick,
      "small sizes and short rows unless given, to check the benchmark runs (no --strace)");
  app.add_flag("--json", json_output, "print each table as one JSON line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "pointops_bench: %s (see --help)\n", e.what());
    return 2;
  }
  if (quick) {
    // Options given explicitly keep their values.
    if (app.count("--seconds") == 0) settings.seconds = 0.3;
    if (app.count("--max-keys") == 0) settings.max_keys = 20'000;
    if (app.count("--bulk-documents") == 0) settings.bulk_documents = 5'000;
    if (app.count("--big-documents") == 0) settings.big_documents = 2'000;
    settings.strace = false;
  }
  bool valid_threads = !settings.threads.empty();
  for (int threads : settings.threads) valid_threads = valid_threads && threads > 0;
  if (!valid_threads || settings.value_bytes.empty() || settings.seconds <= 0 ||
      settings.max_keys == 0 || settings.many_clients < 1 || settings.bulk_documents == 0 ||
      settings.big_documents == 0 || settings.slow_clients_per_kind < 1 ||
      settings.strace_seconds <= 0) {
    std::fprintf(stderr,
                 "pointops_bench: needs --threads, --value-bytes, --seconds, --max-keys, "
                 "--many-clients, --bulk-documents, --big-documents, --slow-clients and "
                 "--strace-seconds above 0\n");
    return 2;
  }
  if (settings.strace && settings.server_pid == 0) {
    std::fprintf(stderr, "pointops_bench: --strace needs --server-pid\n");
    return 2;
  }

  Say("key-value rows");
  std::vector<qb::WrittenKeys> written;
  Print(OrExit(qb::KeyValuePart(settings, &written), "key-value rows"));
  Say("many clients");
  Print(OrExit(qb::ManyClientsPart(settings, written.back()), "many clients"));
  Say("insert_one before and after a bulk load");
  Print(OrExit(qb::AfterBulkPart(settings), "after a bulk load"));
  Say("loading " + std::to_string(settings.big_documents) + " documents, then slow commands");
  Print(OrExit(qb::BesideSlowPart(settings), "short beside slow"));
  if (settings.strace) {
    Say("system calls per request");
    Print(OrExit(qb::SyscallPart(settings, written.back()), "system calls"));
  }
  return 0;
}
