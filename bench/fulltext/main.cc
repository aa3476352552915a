// fulltext_bench: Quarry's full-text search ($search, BM25) against PostgreSQL 15's (tsvector,
// GIN, ts_rank) on the same generated corpus, in one table.
//   fulltext_bench --uri URI --postgres-port PORT [--documents 100000] [--seconds 5]
//                  [--server-pid PID] [--postgres-pid PID] [--quick] [--json]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "bench/fulltext/fulltext_run.h"
#include "bench/fulltext/fulltext_table.h"
#include "tools/client/result_table.h"

namespace {

namespace qb = quarry::bench;
namespace tc = quarry::tools::client;

// Progress goes to stderr, so stdout holds only the table.
void Say(const std::string& line) {
  std::fprintf(stderr, "fulltext_bench: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  qb::FullTextSettings settings;
  settings.uri = "mongodb://127.0.0.1:27017";
  bool quick = false;
  bool json_output = false;
  CLI::App app{"fulltext_bench: full-text search, Quarry vs PostgreSQL 15, on one corpus"};
  app.add_option("--uri", settings.uri, "Quarry server to measure")->capture_default_str();
  app.add_option("--postgres-port", settings.postgres_port, "PostgreSQL on 127.0.0.1")->required();
  app.add_option("--postgres-user", settings.postgres_user, "PostgreSQL role to connect as")
      ->capture_default_str();
  app.add_option("--documents", settings.corpus.documents, "documents loaded into each store")
      ->capture_default_str();
  app.add_option("--vocabulary", settings.corpus.vocabulary, "distinct words the corpus draws on")
      ->capture_default_str();
  app.add_option("--seed", settings.corpus.seed, "seed of the corpus")->capture_default_str();
  app.add_option("--batch", settings.batch, "documents per insert_many and per COPY message")
      ->capture_default_str();
  app.add_option("--seconds", settings.seconds, "duration of each query row")
      ->capture_default_str();
  app.add_option("--server-pid", settings.server_pid,
                 "quarryd's PID (bench/run_with_quarryd.sh passes it): its CPU time per "
                 "operation and its memory growth over the index build");
  app.add_option("--postgres-pid", settings.postgres_pid,
                 "the postmaster's PID (bench/fulltext/run.sh passes it): its and its backends' "
                 "CPU time per operation");
  app.add_flag("--quick", quick,
               "5,000 documents and 1 s query rows unless given, to check it runs");
  app.add_flag("--json", json_output, "print the table as one JSON line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "fulltext_bench: %s (see --help)\n", e.what());
    return 2;
  }
  if (quick) {
    // Options given explicitly keep their values.
    if (app.count("--documents") == 0) settings.corpus.documents = 5'000;
    if (app.count("--seconds") == 0) settings.seconds = 1;
  }
  if (settings.corpus.documents < 100 || settings.corpus.vocabulary < 100 || settings.batch == 0 ||
      settings.seconds <= 0) {
    std::fprintf(stderr,
                 "fulltext_bench: needs --documents and --vocabulary of at least 100, and "
                 "--batch and --seconds above 0\n");
    return 2;
  }

  quarry::StatusWith<qb::FullTextResults> results = qb::RunFullText(settings, Say);
  if (!results.ok()) {
    std::fprintf(stderr, "fulltext_bench: %s\n", results.status().ToString().c_str());
    return 1;
  }
  const tc::ResultTable table = qb::FullTextTable(settings, results.value());
  const std::string text = json_output ? tc::FormatJson(table) + "\n" : tc::FormatText(table);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (!qb::MatchCountsAgree(results.value())) {
    std::fprintf(stderr, "fulltext_bench: the stores' match counts disagree (see the table)\n");
    return 1;
  }
  return 0;
}
