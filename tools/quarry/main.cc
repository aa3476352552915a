// quarry: the command-line tool. This file only parses arguments and prints; the work is in
// tested library code (tools/bench/ for `quarry bench`, tools/watch/ for `quarry watch`, over
// tools/client/).
//   quarry bench network --uri URI [--compressors none,snappy,zlib,zstd] [--zlib-level N]
//                        [--megabytes 10] [--batch-size 100] [--json] [--chart FILE.svg]
//   quarry watch --uri URI [--db D] [--collection C] [--full-document updateLookup]
//                [--resume-token-file F]   (tools/watch/; runs until SIGINT/SIGTERM)
//   quarry bench bulk --uri URI [--documents 200000] [--size 1kb] [--rounds ...] [--json] ...
// Exit status: 0 success, 1 the run failed, 2 bad arguments.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "tools/bench/bulk_bench.h"
#include "tools/bench/network_bench.h"
#include "tools/client/byte_size.h"
#include "tools/client/progress.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"
#include "tools/watch/change_watcher.h"

namespace {

namespace bench = quarry::tools::bench;
namespace client = quarry::tools::client;

constexpr int kRunFailed = 1;
constexpr int kBadArguments = 2;

// What every bench subcommand shares: where to connect and how to print.
struct OutputFlags {
  std::string uri = "mongodb://localhost:27017";
  bool json = false;
  std::string chart;
  bool no_progress = false;
};

void AddCommonFlags(CLI::App* command, OutputFlags* flags) {
  command->add_option("--uri", flags->uri, "MongoDB connection string of the server to measure")
      ->capture_default_str();
  command->add_flag("--json", flags->json, "print the results as one JSON object");
  command->add_option("--chart", flags->chart, "also draw the table as an SVG bar chart here");
  command->add_flag("--no-progress", flags->no_progress,
                    "no progress bar on stderr (it shows only on a terminal anyway)");
}

int Fail(const std::string& command, const quarry::Status& status, int code) {
  std::fprintf(stderr, "quarry bench %s: %s\n", command.c_str(),
               std::string(status.reason()).c_str());
  return code;
}

int Print(const std::string& command, const OutputFlags& flags, const client::ResultTable& table,
          const client::ChartOptions& chart) {
  if (flags.json) {
    std::printf("%s\n", client::FormatJson(table).c_str());
  } else {
    std::fputs(client::FormatText(table).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!flags.chart.empty()) {
    quarry::Status written = client::WriteBarChartSvg(table, chart, flags.chart);
    if (!written.ok()) return Fail(command, written, kRunFailed);
  }
  return 0;
}

// Set by SIGINT/SIGTERM; `quarry watch` polls it between awaited getMores.
std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested.store(true); }

int RunWatchCommand(const quarry::tools::watch::WatchOptions& options) {
  struct sigaction action = {};
  action.sa_handler = RequestStop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  auto printed = quarry::tools::watch::RunWatch(options, stdout, stop_requested);
  if (!printed.ok()) {
    std::fprintf(stderr, "quarry watch: %s\n", std::string(printed.status().reason()).c_str());
    return printed.status().code() == quarry::ErrorCode::kBadValue ? kBadArguments : kRunFailed;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  quarry::TuneAllocatorForLargeMessages();  // the bench sends and reads 48 MB messages
  CLI::App app{"quarry: tools for Quarry and any MongoDB-compatible server"};
  app.require_subcommand(1);
  CLI::App* bench_command = app.add_subcommand("bench", "measure a server");
  bench_command->require_subcommand(1);

  OutputFlags network_flags;
  bench::NetworkBenchOptions network;
  std::string compressors = "none,snappy,zlib,zstd";
  CLI::App* network_command = bench_command->add_subcommand(
      "network", "write and read generated listings once per wire compressor");
  AddCommonFlags(network_command, &network_flags);
  network_command
      ->add_option("--compressors", compressors, "comma-separated: none,snappy,zlib,zstd")
      ->capture_default_str();
  network_command->add_option("--zlib-level", network.zlib_level,
                              "client zlib compression level, -1 (default) to 9");
  network_command
      ->add_option("--megabytes", network.megabytes,
                   "MB (10^6 bytes) of documents to write and read per compressor")
      ->capture_default_str();
  network_command
      ->add_option("--batch-size", network.batch_size, "documents per insert and per find batch")
      ->capture_default_str();
  network_command->add_option("--seed", network.seed, "seed of the data generator")
      ->capture_default_str();

  OutputFlags bulk_flags;
  bench::BulkBenchOptions bulk;
  std::string size = "1kb";
  std::string shape = "record";
  std::string rounds = "one-by-one,bulk,unack,unack-gle,journaled";
  bool no_driver_validation = false;
  CLI::App* bulk_command = bench_command->add_subcommand(
      "bulk", "insert the same documents one by one, in bulk, unacknowledged and journaled");
  AddCommonFlags(bulk_command, &bulk_flags);
  bulk_command->add_option("--documents", bulk.documents, "documents per round")
      ->capture_default_str();
  bulk_command->add_option("--size", size, "BSON size of each document (1kb = 1000 bytes)")
      ->capture_default_str();
  bulk_command
      ->add_option("--shape", shape, "record (flat, as bench/storage_insert) or listing (nested)")
      ->capture_default_str();
  bulk_command->add_option("--rounds", rounds, "comma-separated rounds to run")
      ->capture_default_str();
  bulk_command
      ->add_option("--one-by-one-documents", bulk.one_by_one_documents,
                   "documents in the one-by-one round (0: --documents)")
      ->capture_default_str();
  bulk_command->add_option("--seed", bulk.seed, "seed of the data generator")
      ->capture_default_str();
  bulk_command->add_flag("--no-driver-validation", no_driver_validation,
                         "skip the driver's per-document key and UTF-8 checks");

  quarry::tools::watch::WatchOptions watch;
  watch.uri = "mongodb://localhost:27017";
  CLI::App* watch_command = app.add_subcommand(
      "watch", "print change events as relaxed Extended JSON lines until SIGINT/SIGTERM");
  watch_command->add_option("--uri", watch.uri, "MongoDB connection string")->capture_default_str();
  watch_command->add_option("--db", watch.database, "watch this database (default: all)");
  watch_command->add_option("--collection", watch.collection, "watch only this collection of --db");
  watch_command->add_option("--full-document", watch.full_document,
                            "fullDocument mode, e.g. updateLookup");
  watch_command->add_option("--resume-token-file", watch.resume_token_file,
                            "resume after the token saved here, and save each new one");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "quarry: %s (see --help)\n", e.what());
    return kBadArguments;
  }

  if (watch_command->parsed()) return RunWatchCommand(watch);

  if (network_command->parsed()) {
    network.uri = network_flags.uri;
    network.compressors = client::SplitList(compressors);
    quarry::Status valid = bench::ValidateNetworkBenchOptions(network);
    if (!valid.ok()) return Fail("network", valid, kBadArguments);
    client::ProgressBar progress(stderr, !network_flags.no_progress && client::IsTerminal(stderr));
    auto result = bench::RunNetworkBench(network, progress);
    if (!result.ok()) return Fail("network", result.status(), kRunFailed);
    client::ResultTable table = bench::NetworkBenchTable(network, result.value());
    return Print("network", network_flags, table, bench::NetworkBenchChart(table));
  }

  bulk.uri = bulk_flags.uri;
  bulk.driver_validation = !no_driver_validation;
  auto bytes = client::ParseByteSize(size);
  if (!bytes.ok()) return Fail("bulk", bytes.status(), kBadArguments);
  bulk.document_bytes = bytes.value();
  if (shape == "record") {
    bulk.shape = bench::DocumentShape::kRecord;
  } else if (shape == "listing") {
    bulk.shape = bench::DocumentShape::kListing;
  } else {
    return Fail("bulk",
                quarry::Status(quarry::ErrorCode::kBadValue,
                               "unknown shape '" + shape + "' (choose record or listing)"),
                kBadArguments);
  }
  bulk.rounds.clear();
  for (const std::string& name : client::SplitList(rounds)) {
    auto round = bench::ParseBulkRound(name);
    if (!round.ok()) return Fail("bulk", round.status(), kBadArguments);
    bulk.rounds.push_back(round.value());
  }
  quarry::Status valid = bench::ValidateBulkBenchOptions(bulk);
  if (!valid.ok()) return Fail("bulk", valid, kBadArguments);
  client::ProgressBar progress(stderr, !bulk_flags.no_progress && client::IsTerminal(stderr));
  auto result = bench::RunBulkBench(bulk, progress);
  if (!result.ok()) return Fail("bulk", result.status(), kRunFailed);
  client::ResultTable table = bench::BulkBenchTable(bulk, result.value());
  return Print("bulk", bulk_flags, table, bench::BulkBenchChart(table));
}
