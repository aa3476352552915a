// insert_bench: the same documents inserted through the MongoDB C driver into a running server
// and committed straight into RocksDB through Quarry's storage layer (bench/storage_insert), in
// one run, with documents/s for both and their ratio.
//   insert_bench --uri URI [--documents 100000] [--size 200] [--batch 1000] [--json]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "base/allocator.h"
#include "bench/storage_insert/storage_insert_bench.h"
#include "tools/bench/bulk_insert.h"
#include "tools/bench/record_generator.h"
#include "tools/client/mongo_client.h"
#include "tools/client/progress.h"
#include "tools/client/result_table.h"

namespace {

namespace tb = quarry::tools::bench;
namespace tc = quarry::tools::client;

struct Options {
  std::string uri = "mongodb://localhost:27017";
  std::size_t documents = 100'000;
  std::size_t size = 200;
  std::size_t batch = 1'000;
  bool json = false;
};

struct Measured {
  double seconds = 0;
  std::size_t bytes = 0;
};

// The driver half: w:1 bulk writes of `batch` documents into quarry_bench.insert_bench.
quarry::StatusWith<Measured> InsertThroughDriver(const Options& options) {
  // RecordGenerator's default seed is bench/storage_insert's, so both halves insert the same
  // documents (all fields but _id).
  tb::RecordGenerator generator({.target_bytes = options.size});
  tb::DocumentSet docs = tb::GenerateCount(generator, options.documents);
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<tc::MongoClient> client,
      tc::MongoClient::Connect({.uri = options.uri, .app_name = "insert_bench"}));
  tc::CollectionPtr collection = client->Collection("quarry_bench", "insert_bench");
  QUARRY_RETURN_IF_ERROR(tb::DropCollection(collection.get()));
  tc::NoProgress progress;
  auto start = std::chrono::steady_clock::now();
  QUARRY_RETURN_IF_ERROR(tb::InsertInBatches(collection.get(), docs, options.batch,
                                             {.mode = tb::WriteMode::kAcknowledged}, progress));
  Measured measured{std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                    docs.bytes()};
  QUARRY_ASSIGN_OR_RETURN(std::int64_t count, tb::CountDocuments(collection.get()));
  if (count != static_cast<std::int64_t>(docs.size())) {
    return quarry::Status(quarry::ErrorCode::kOperationFailed,
                          "the server holds " + std::to_string(count) + " of " +
                              std::to_string(docs.size()) + " documents");
  }
  QUARRY_RETURN_IF_ERROR(tb::DropCollection(collection.get()));
  return measured;
}

}  // namespace

int main(int argc, char** argv) {
  // The storage layer measured in this process runs with the server's allocator settings.
  quarry::tools::client::TuneAllocator(argv);
  Options options;
  CLI::App app{"insert_bench: driver inserts against a server vs. the storage layer alone"};
  app.add_option("--uri", options.uri, "server to insert into")->capture_default_str();
  app.add_option("--documents", options.documents, "documents per half")->capture_default_str();
  app.add_option("--size", options.size, "BSON bytes per document")->capture_default_str();
  app.add_option("--batch", options.batch, "documents per insert / per commit")
      ->capture_default_str();
  app.add_flag("--json", options.json, "print the table as JSON");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "insert_bench: %s (see --help)\n", e.what());
    return 2;
  }
  if (options.documents == 0 || options.batch == 0) {
    std::fprintf(stderr, "insert_bench: --documents and --batch must be at least 1\n");
    return 2;
  }

  auto driver = InsertThroughDriver(options);
  if (!driver.ok()) {
    std::fprintf(stderr, "insert_bench: %s\n", std::string(driver.status().reason()).c_str());
    return 1;
  }
  auto storage = quarry::bench::RunStorageInsertBench({.dbpath = "",  // a temporary directory
                                                       .documents = options.documents,
                                                       .batch_size = options.batch,
                                                       .document_bytes = options.size});
  if (!storage.ok()) {
    std::fprintf(stderr, "insert_bench: storage layer: %s\n", storage.status().ToString().c_str());
    return 1;
  }

  const double n = static_cast<double>(options.documents);
  const double driver_rate = n / driver.value().seconds;
  const double storage_rate = storage.value().documents_per_second;
  tc::ResultTable table;
  table.benchmark = "insert";
  table.title = "insert_bench: the same documents through the driver and the storage layer";
  table.parameters = {{"uri", options.uri},
                      {"documents", static_cast<std::int64_t>(options.documents)},
                      {"document bytes", static_cast<std::int64_t>(options.size)},
                      {"batch", static_cast<std::int64_t>(options.batch)}};
  table.columns = {{"path", "path"},
                   {"seconds", "seconds", 3},
                   {"documents/s", "documents_per_second", 0},
                   {"MB/s", "megabytes_per_second", 1},
                   {"vs storage", "ratio_to_storage", 2}};
  table.rows = {
      {std::string("C driver -> server (w:1 bulk)"), driver.value().seconds, driver_rate,
       static_cast<double>(driver.value().bytes) / 1e6 / driver.value().seconds,
       driver_rate / storage_rate},
      {std::string("storage layer (commit pipeline)"), storage.value().seconds, storage_rate,
       static_cast<double>(storage.value().bson_bytes) / 1e6 / storage.value().seconds, 1.0}};
  table.notes = {
      "storage layer seconds include building each document and its oplog entry "
      "(commit alone: " +
      std::to_string(storage.value().commit_seconds).substr(0, 5) + " s)."};
  if (options.json) {
    std::printf("%s\n", tc::FormatJson(table).c_str());
  } else {
    std::fputs(tc::FormatText(table).c_str(), stdout);
  }
  return 0;
}
