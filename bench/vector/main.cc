// vector_bench: Atlas Vector Search's API on a running server against hnswlib and brute force
// in this process, on the same clustered vectors, in one run: approximate search (1 and N
// client threads, and Quarry's VectorIndex in-process), filtered search, exact search, index
// build, inserts and memory, memory and recall by quantization, and the server's start-up from
// a search index's snapshot against a rebuild (which stops and starts the server again).
//   vector_bench --uri URI [--vectors 50000] [--dimensions 384] [--queries 1000]
//                [--server-pid PID] [--json]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "base/allocator.h"
#include "bench/clients/process_memory.h"
#include "bench/vector/hnswlib_baseline.h"
#include "bench/vector/parts.h"
#include "tools/client/mongo_client.h"
#include "tools/client/result_table.h"

namespace {

namespace qb = quarry::bench;
namespace tc = quarry::tools::client;

bool json_output = false;

void Print(const tc::ResultTable& table) {
  std::printf("%s\n", (json_output ? tc::FormatJson(table) : tc::FormatText(table)).c_str());
  std::fflush(stdout);
}

// Progress goes to stderr, so stdout holds only the tables.
void Say(const std::string& line) {
  std::fprintf(stderr, "vector_bench: %s\n", line.c_str());
  std::fflush(stderr);
}

template <typename T>
T OrExit(quarry::StatusWith<T> result, const char* what) {
  if (!result.ok()) {
    std::fprintf(stderr, "vector_bench: %s: %s\n", what, result.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(result).value();
}

}  // namespace

int main(int argc, char** argv) {
  // hnswlib and the vector index measured in this process run with the server's allocator
  // settings.
  quarry::tools::client::TuneAllocator(argv);
  qb::VectorBenchSettings settings;
  settings.uri = "mongodb://127.0.0.1:27017";
  CLI::App app{"vector_bench: $vectorSearch against hnswlib and brute force in-process"};
  app.add_option("--uri", settings.uri, "server to measure")->capture_default_str();
  app.add_option("--vectors", settings.vectors, "vectors in the collection")->capture_default_str();
  app.add_option("--dimensions", settings.dimensions, "dimensions of each vector")
      ->capture_default_str();
  app.add_option("--queries", settings.queries, "query vectors")->capture_default_str();
  app.add_option("--exact-queries", settings.exact_queries,
                 "query vectors of the exact-search part")
      ->capture_default_str();
  app.add_option("--candidates", settings.candidates,
                 "numCandidates (= hnswlib ef) values to try, smallest first")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--threads", settings.threads, "client threads of the multi-threaded rows")
      ->capture_default_str();
  app.add_option("--repeat", settings.repeat, "runs of each unfiltered row (the median is shown)")
      ->capture_default_str();
  app.add_option("--min-seconds", settings.min_seconds,
                 "seconds each approximate-search row runs at least, cycling through the queries")
      ->capture_default_str();
  app.add_option("--batch", settings.batch, "documents per insert_many")->capture_default_str();
  app.add_option("--server-pid", settings.server_pid,
                 "PID of the server when it runs on this machine, for its memory and start-up "
                 "(the last part stops it and starts it again; 0: neither measured)")
      ->capture_default_str();
  app.add_flag("--json", json_output, "print each table as one JSON line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "vector_bench: %s (see --help)\n", e.what());
    return 2;
  }
  if (settings.vectors < 100 || settings.dimensions < 2 || settings.dimensions > 8192 ||
      settings.queries < 1 || settings.candidates.empty() || settings.threads < 1 ||
      settings.repeat < 1 || settings.batch == 0 || settings.min_seconds < 0) {
    std::fprintf(stderr,
                 "vector_bench: needs --vectors >= 100, --dimensions 2..8192, --queries, "
                 "--candidates, --threads, --repeat and --batch above 0, --min-seconds >= 0\n");
    return 2;
  }
  std::sort(settings.candidates.begin(), settings.candidates.end());

  Say("generating " + std::to_string(settings.vectors) + " vectors and " +
      std::to_string(settings.queries) + " queries, with their exact answers");
  const qb::BenchData data = qb::MakeBenchData(settings);
  std::unique_ptr<tc::MongoClient> client = OrExit(
      tc::MongoClient::Connect({.uri = settings.uri, .app_name = "vector_bench"}), "connect");

  Say("loading the collection, then building the search index");
  const qb::LoadResult load = OrExit(qb::LoadAndIndex(*client, settings, data), "load and index");
  Say("building hnswlib in this process");
  const std::int64_t rss_before = qb::ResidentBytes(getpid());
  qb::HnswlibBaseline hnswlib(data.vectors, settings.max_edges, settings.ef_construction);
  const std::int64_t rss_after = qb::ResidentBytes(getpid());
  const qb::BaselineBuild baseline{
      .seconds = hnswlib.build_seconds(),
      .rss_growth = rss_before >= 0 && rss_after >= 0 ? rss_after - rss_before : -1};
  Say("building Quarry's VectorIndex in this process");
  const std::int64_t index_rss_before = qb::ResidentBytes(getpid());
  const qb::InProcessIndex in_process(data.vectors, settings.max_edges, settings.ef_construction);
  const std::int64_t index_rss_after = qb::ResidentBytes(getpid());
  const qb::BaselineBuild in_process_build{
      .seconds = in_process.build_seconds(),
      .rss_growth =
          index_rss_before >= 0 && index_rss_after >= 0 ? index_rss_after - index_rss_before : -1};

  Say("approximate search");
  std::size_t chosen = 0;
  Print(OrExit(qb::SearchPart(settings, data, hnswlib, in_process, &chosen), "search"));
  Say("filtered search");
  Print(OrExit(qb::FilteredPart(settings, data, chosen), "filtered search"));
  Say("exact search");
  Print(OrExit(qb::ExactPart(settings, data), "exact search"));
  Say("inserting with the index in place");
  Print(OrExit(qb::BuildPart(*client, settings, data, load, baseline, in_process_build),
               "build and inserts"));
  Say("memory and recall by quantization");
  Print(OrExit(qb::QuantizationPart(*client, settings, data), "quantization"));
  Say("start-up from a snapshot and rebuilding (the server is stopped and started again)");
  Print(OrExit(qb::StartupPart(*client, settings), "start-up"));
  return 0;
}
