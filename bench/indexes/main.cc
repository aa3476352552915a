// index_bench: what secondary indexes buy and cost on listing-like documents, each part against
// its baseline in the same run (issue 10): indexed finds vs collection scans, inserts with
// 1/3/5 indexes vs none, index builds vs a scan, and point reads vs Redis GETs.
//   index_bench --uri URI [--documents 1000000] [--size 1000] [--redis-port PORT] [--json]
//               [--inserts-only | --reads-only]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/indexes/listing_set.h"
#include "bench/indexes/parts.h"
#include "bench/indexes/point_reads.h"
#include "tools/client/mongo_client.h"
#include "tools/client/result_table.h"

namespace {

namespace qb = quarry::bench;
namespace tc = quarry::tools::client;

bool json_output = false;
bool inserts_only = false;
bool reads_only = false;
std::vector<std::size_t> insert_rounds = {0, 1, 3, 5};

void Print(const tc::ResultTable& table) {
  if (json_output) {
    std::printf("%s\n", tc::FormatJson(table).c_str());
  } else {
    std::printf("%s\n", tc::FormatText(table).c_str());
  }
  std::fflush(stdout);
}

// Progress goes to stderr, so stdout holds only the tables.
void Say(const std::string& line) {
  std::fprintf(stderr, "index_bench: %s\n", line.c_str());
  std::fflush(stderr);
}

template <typename T>
T OrExit(quarry::StatusWith<T> result, const char* what) {
  if (!result.ok()) {
    std::fprintf(stderr, "index_bench: %s: %s\n", what, result.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(result).value();
}

void OrExit(const quarry::Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "index_bench: %s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  qb::BenchSettings settings;
  settings.uri = "mongodb://127.0.0.1:27017";
  std::size_t documents = 1'000'000;
  std::size_t size = 1'000;
  CLI::App app{"index_bench: secondary indexes against scans, no indexes and Redis"};
  app.add_option("--uri", settings.uri, "server to measure")->capture_default_str();
  app.add_option("--documents", documents, "listings in the collection")->capture_default_str();
  app.add_option("--size", size, "BSON bytes per listing (at least ~650)")->capture_default_str();
  app.add_option("--batch", settings.batch, "documents per bulk insert")->capture_default_str();
  app.add_option("--redis-port", settings.redis_port,
                 "Redis on 127.0.0.1 to compare point reads with (0: none)")
      ->capture_default_str();
  app.add_option("--seconds", settings.seconds, "duration of each point-read row")
      ->capture_default_str();
  app.add_option("--repeat", settings.repeat, "runs of each timed find (the median is shown)")
      ->capture_default_str();
  app.add_option("--read-rounds", settings.read_rounds,
                 "rounds of the point-read rows, each reader once per round (the round with the "
                 "median share of Redis is shown)")
      ->capture_default_str();
  app.add_option("--build-rounds", settings.build_rounds,
                 "builds of each index, dropped in between (the round with the median build / "
                 "scan ratio is shown); the later insert rounds then also pay for compacting "
                 "the dropped keys away")
      ->capture_default_str();
  app.add_option("--insert-repeat", settings.insert_repeat,
                 "repetitions of the insert rounds (each ratio is to the round with no index of "
                 "the same repetition; the repetition with the median ratio is shown)")
      ->capture_default_str();
  app.add_option(
         "--server-pid", settings.server_pid,
         "PID of the server when it runs on this machine, to show its CPU time (0: not shown)")
      ->capture_default_str();
  app.add_flag("--json", json_output, "print each table as one JSON line");
  app.add_flag("--inserts-only", inserts_only,
               "run only the insert rounds (to profile the write path)");
  app.add_flag("--reads-only", reads_only,
               "after the load, scan once, build only the unique index and run only the point "
               "reads (to profile the read path)");
  app.add_option("--insert-rounds", insert_rounds,
                 "secondary index counts of the insert rounds after the load (0-5)")
      ->delimiter(',')
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "index_bench: %s (see --help)\n", e.what());
    return 2;
  }
  if (documents < 10 || settings.batch == 0 || settings.repeat < 1 || settings.read_rounds < 1 ||
      settings.build_rounds < 1 || settings.insert_repeat < 1 || settings.seconds <= 0) {
    std::fprintf(stderr,
                 "index_bench: needs --documents >= 10, --batch, --repeat, --read-rounds, "
                 "--build-rounds, --insert-repeat and --seconds above 0\n");
    return 2;
  }

  Say("generating " + std::to_string(documents) + " listings");
  const qb::ListingSet set = qb::MakeListings(documents, size);
  std::unique_ptr<tc::MongoClient> client =
      OrExit(tc::MongoClient::Connect({.uri = settings.uri, .app_name = "index_bench"}), "connect");

  Say("inserting with 0 secondary indexes");
  std::vector<qb::InsertRound> rounds;
  rounds.push_back(
      OrExit(qb::InsertWithIndexes(*client, settings, set, settings.collection, 0, /*keep=*/true),
             "insert with no index"));
  if (reads_only) {
    Say("scanning, building the unique index, then point reads");
    // One pass over the records, as the full run's builds make before its point reads.
    qb::FindSpec scan;
    bson_t* filter = bson_new();
    BSON_APPEND_BOOL(filter, "no_such_field", true);
    scan.filter = tc::BsonPtr(filter);
    scan.collection_scan = true;
    OrExit(qb::TimeFind(client->Collection(settings.db, settings.collection).get(), scan, 1),
           "scan");
    for (const qb::IndexSpec& index : qb::SecondaryIndexes(4)) {
      if (!index.unique) continue;
      OrExit(qb::BuildIndex(*client, settings.db, settings.collection, index), "index build");
    }
    if (settings.redis_port != 0) OrExit(qb::LoadRedis(settings.redis_port, set), "loading Redis");
    Print(OrExit(qb::PointReadPart(settings, set), "point reads"));
    return 0;
  }
  if (!inserts_only) {
    Say("scanning, then building indexes");
    Print(OrExit(qb::BuildPart(*client, settings, set), "index builds"));
    Say("equality finds");
    Print(OrExit(qb::EqualityPart(*client, settings, set), "equality finds"));
    Say("range + sort + limit");
    Print(OrExit(qb::RangeSortPart(*client, settings), "range sort limit"));
    if (settings.redis_port != 0) {
      Say("loading Redis");
      OrExit(qb::LoadRedis(settings.redis_port, set), "loading Redis");
    }
    Say("point reads");
    Print(OrExit(qb::PointReadPart(settings, set), "point reads"));
  }
  for (int repetition = 0; repetition < settings.insert_repeat; ++repetition) {
    for (std::size_t indexes : insert_rounds) {
      Say("inserting with " + std::to_string(indexes) + " secondary indexes");
      qb::InsertRound round = OrExit(
          qb::InsertWithIndexes(*client, settings, set, settings.insert_collection, indexes, false),
          "insert with indexes");
      round.repetition = repetition;
      rounds.push_back(round);
    }
  }
  Print(qb::InsertTable(settings, set, rounds));
  return 0;
}
