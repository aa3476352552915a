// import_bench: `quarry import` of a large NDJSON file against simdjson parsing the same file
// alone and against its own reader and converter without a server, in one run: documents/s and
// the importer's peak RSS. bench/import/run.sh starts the server.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/clients/process_cpu.h"
#include "bench/import/ndjson_file.h"
#include "bench/import/parse_parts.h"
#include "tools/client/byte_size.h"
#include "tools/client/result_table.h"

extern char** environ;

namespace {

namespace bi = quarry::bench::import;
namespace tc = quarry::tools::client;

constexpr double kTargetDocumentsPerSecond = 100'000;
constexpr double kTargetPeakRssMb = 200;

struct ImportRun {
  std::uint64_t imported = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  double peak_rss_mb = 0;
  double server_cpu_seconds = -1;
};

template <typename T>
T OrExit(quarry::StatusWith<T> result, const char* what) {
  if (!result.ok()) {
    std::fprintf(stderr, "import_bench: %s: %s\n", what,
                 std::string(result.status().reason()).c_str());
    std::exit(1);
  }
  return std::move(result).value();
}

// Runs `quarry import` as a child, its stderr through a pipe, and reads its resource use.
quarry::StatusWith<ImportRun> RunImport(const std::string& tool, const std::string& uri,
                                        const std::string& file, int workers, int server_pid) {
  std::vector<std::string> args = {tool,
                                   "import",
                                   "--uri",
                                   uri,
                                   "--db",
                                   "import_bench",
                                   "--collection",
                                   "docs",
                                   "--drop",
                                   "--file",
                                   file,
                                   "--numInsertionWorkers",
                                   std::to_string(workers)};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0)
    return quarry::Status(quarry::ErrorCode::kOperationFailed, "pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  const double server_started = server_pid > 0 ? quarry::bench::ProcessCpuSeconds(server_pid) : 0;
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, tool.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return quarry::Status(quarry::ErrorCode::kOperationFailed, "cannot run " + tool);
  }
  std::string output;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0)
    output.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  ImportRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (server_pid > 0)
    run.server_cpu_seconds = quarry::bench::ProcessCpuSeconds(server_pid) - server_started;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return quarry::Status(quarry::ErrorCode::kOperationFailed, "quarry import failed: " + output);
  }
  run.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  run.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  unsigned long long imported = 0, failed = 0;
  const std::size_t line = output.rfind(" documents imported");
  const std::size_t start = output.rfind('\n', line == std::string::npos ? 0 : line);
  if (line == std::string::npos ||
      std::sscanf(output.c_str() + (start == std::string::npos ? 0 : start + 1),
                  "%llu documents imported, %llu failed", &imported, &failed) != 2 ||
      failed != 0) {
    return quarry::Status(quarry::ErrorCode::kOperationFailed,
                          "unexpected quarry import output: " + output);
  }
  run.imported = imported;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  std::string uri = "mongodb://127.0.0.1:27017";
  std::string tool;
  std::string file =
      (std::filesystem::temp_directory_path() / "quarry_import_bench.ndjson").string();
  std::string size = "2gb";
  std::vector<int> workers = {1, 2};
  std::uint64_t seed = 42;
  int server_pid = 0;
  bool keep = false;
  bool json = false;
  CLI::App app{"import_bench: quarry import of a large NDJSON file against simdjson alone"};
  app.add_option("--uri", uri, "server to import into")->capture_default_str();
  app.add_option("--quarry", tool, "the quarry tool")->required();
  app.add_option("--file", file, "the NDJSON file (written when missing or of another size)")
      ->capture_default_str();
  app.add_option("--size", size, "bytes of JSON to import, e.g. 2gb or 200mb")
      ->capture_default_str();
  app.add_option("--workers", workers, "--numInsertionWorkers of each import row")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the generated documents")->capture_default_str();
  app.add_option("--server-pid", server_pid, "the server's PID, for its CPU time (0: not shown)");
  app.add_flag("--keep-file", keep, "keep the NDJSON file for the next run");
  app.add_flag("--json", json, "print the table as one JSON line");
  CLI11_PARSE(app, argc, argv);

  const std::uint64_t bytes = OrExit(tc::ParseByteSize(size), "--size");
  std::error_code ec;
  const auto existing = std::filesystem::file_size(file, ec);
  bi::NdjsonFile input;
  if (!ec && existing >= bytes && existing < bytes + 4096) {
    input.bytes = existing;
  } else {
    std::fprintf(stderr, "import_bench: writing %s\n", file.c_str());
    input = OrExit(bi::WriteNdjsonFile(file, bytes, seed), "writing the file");
  }

  tc::ResultTable table;
  table.benchmark = "import";
  table.title = "quarry import vs simdjson alone";
  table.columns = {{"row", "row"},
                   {"documents", "documents"},
                   {"seconds", "seconds", 2},
                   {"documents/s", "documents_per_second"},
                   {"MB/s", "megabytes_per_second", 1},
                   {"CPU s", "cpu_seconds", 2},
                   {"server CPU s", "server_cpu_seconds", 2},
                   {"peak RSS MB", "peak_rss_megabytes", 1},
                   {"vs simdjson", "vs_simdjson", 2}};
  const double mb = static_cast<double>(input.bytes) / 1e6;
  table.parameters = {{"file", file}, {"MB", mb}};

  std::fprintf(stderr, "import_bench: simdjson alone\n");
  const bi::PartResult simd = OrExit(bi::ParseWithSimdjson(file), "simdjson");
  const double simd_rate = static_cast<double>(simd.documents) / simd.seconds;
  table.rows.push_back({std::string("simdjson iterate_many, every value"),
                        static_cast<std::int64_t>(simd.documents), simd.seconds, simd_rate,
                        mb / simd.seconds, simd.cpu_seconds, tc::Cell{}, tc::Cell{}, 1.0});
  std::fprintf(stderr, "import_bench: reader and converter alone\n");
  const bi::PartResult convert = OrExit(bi::ConvertToBson(file), "converting");
  table.rows.push_back({std::string("quarry import's reader + JSON to BSON"),
                        static_cast<std::int64_t>(convert.documents), convert.seconds,
                        convert.documents / convert.seconds, mb / convert.seconds,
                        convert.cpu_seconds, tc::Cell{}, tc::Cell{},
                        convert.documents / convert.seconds / simd_rate});
  bool met = true;
  for (int count : workers) {
    std::fprintf(stderr, "import_bench: quarry import with %d worker(s)\n", count);
    const ImportRun run = OrExit(RunImport(tool, uri, file, count, server_pid), "quarry import");
    const double rate = static_cast<double>(run.imported) / run.seconds;
    met = met && rate >= kTargetDocumentsPerSecond && run.peak_rss_mb < kTargetPeakRssMb;
    table.rows.push_back(
        {"quarry import, " + std::to_string(count) + " worker" + (count == 1 ? "" : "s"),
         static_cast<std::int64_t>(run.imported), run.seconds, rate, mb / run.seconds,
         run.cpu_seconds,
         run.server_cpu_seconds >= 0 ? tc::Cell{run.server_cpu_seconds} : tc::Cell{},
         run.peak_rss_mb, rate / simd_rate});
  }
  table.notes = {
      std::string("target: >= 100,000 documents/s with peak RSS < 200 MB in every import row: ") +
          (met ? "met" : "MISSED"),
      "CPU s: this process's for the in-process rows, the importer's for the import rows. The "
      "import "
      "rows include the server's work (it shares this machine)."};
  std::fputs(json ? (tc::FormatJson(table) + "\n").c_str() : tc::FormatText(table).c_str(), stdout);
  if (!keep) std::filesystem::remove(file, ec);
  return 0;
}
