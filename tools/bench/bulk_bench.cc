// The bulk-insert benchmark: one client, one connection, rounds run one after another.
#include "tools/bench/bulk_bench.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "tools/bench/bulk_insert.h"
#include "tools/bench/listing_generator.h"
#include "tools/bench/record_generator.h"
#include "tools/client/mongo_client.h"

namespace quarry::tools::bench {

using client::BsonPtr;
using client::Cell;
using client::ChartOptions;
using client::CollectionPtr;
using client::MongoClient;
using client::ProgressSink;
using client::ResultTable;

namespace {

using Clock = std::chrono::steady_clock;

WriteMode RoundWriteMode(BulkRound round) {
  switch (round) {
    case BulkRound::kUnacknowledgedBulk:
    case BulkRound::kUnacknowledgedBulkGle:
      return WriteMode::kUnacknowledged;
    case BulkRound::kJournaledBulk:
      return WriteMode::kJournaled;
    default:
      return WriteMode::kAcknowledged;
  }
}

// getLastError after w:0 writes: its reply comes after the server has applied them, and its
// `err` names the first failure. Returns a note for the table ("" when all went well).
std::string GetLastErrorNote(MongoClient& client, const std::string& database) {
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_INT32(&command, "getLastError", 1);
  StatusWith<BsonPtr> reply = client.RunCommand(database, command);
  bson_destroy(&command);
  if (!reply.ok()) return "getLastError failed: " + reply.status().ToString();
  bson_iter_t iter;
  if (bson_iter_init_find(&iter, reply.value().get(), "err") && BSON_ITER_HOLDS_UTF8(&iter)) {
    return std::string("getLastError: ") + bson_iter_utf8(&iter, nullptr);
  }
  return "";
}

}  // namespace

std::string_view BulkRoundName(BulkRound round) {
  switch (round) {
    case BulkRound::kAcknowledgedOneByOne:
      return "one-by-one";
    case BulkRound::kAcknowledgedBulk:
      return "bulk";
    case BulkRound::kUnacknowledgedBulk:
      return "unack";
    case BulkRound::kUnacknowledgedBulkGle:
      return "unack-gle";
    case BulkRound::kJournaledBulk:
      return "journaled";
  }
  return "?";
}

std::string_view BulkRoundDescription(BulkRound round) {
  switch (round) {
    case BulkRound::kAcknowledgedOneByOne:
      return "acknowledged one-by-one";
    case BulkRound::kAcknowledgedBulk:
      return "acknowledged bulk";
    case BulkRound::kUnacknowledgedBulk:
      return "unacknowledged bulk";
    case BulkRound::kUnacknowledgedBulkGle:
      return "unacknowledged bulk + getLastError";
    case BulkRound::kJournaledBulk:
      return "journaled bulk";
  }
  return "?";
}

const std::vector<BulkRound>& AllBulkRounds() {
  static const std::vector<BulkRound> rounds = {
      BulkRound::kAcknowledgedOneByOne, BulkRound::kAcknowledgedBulk,
      BulkRound::kUnacknowledgedBulk, BulkRound::kUnacknowledgedBulkGle, BulkRound::kJournaledBulk};
  return rounds;
}

StatusWith<BulkRound> ParseBulkRound(std::string_view name) {
  for (BulkRound round : AllBulkRounds()) {
    if (BulkRoundName(round) == name) return round;
  }
  return Status(ErrorCode::kBadValue,
                "unknown round '" + std::string(name) +
                    "' (choose from one-by-one, bulk, unack, unack-gle, journaled)");
}

Status ValidateBulkBenchOptions(const BulkBenchOptions& options) {
  if (options.documents == 0) return Status(ErrorCode::kBadValue, "--documents must be at least 1");
  if (options.rounds.empty()) return Status(ErrorCode::kBadValue, "no round given");
  for (std::size_t i = 0; i < options.rounds.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (options.rounds[i] == options.rounds[j]) {
        return Status(ErrorCode::kBadValue,
                      "round '" + std::string(BulkRoundName(options.rounds[i])) + "' given twice");
      }
    }
  }
  return Status::OK();
}

StatusWith<BulkBenchResult> RunBulkBench(const BulkBenchOptions& options, ProgressSink& progress) {
  QUARRY_RETURN_IF_ERROR(ValidateBulkBenchOptions(options));
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<MongoClient> client,
                          MongoClient::Connect({.uri = options.uri, .app_name = "quarry-bench"}));

  DocumentSet docs;
  if (options.shape == DocumentShape::kRecord) {
    RecordGenerator generator({.seed = options.seed, .target_bytes = options.document_bytes});
    docs = GenerateCount(generator, options.documents);
  } else {
    ListingGenerator generator({.seed = options.seed, .target_bytes = options.document_bytes});
    docs = GenerateCount(generator, options.documents);
  }

  CollectionPtr collection = client->Collection(options.database, options.collection);
  BulkBenchResult result;
  for (BulkRound round : options.rounds) {
    QUARRY_RETURN_IF_ERROR(DropCollection(collection.get()));
    BulkRoundResult r{.round = round, .note = {}};
    const InsertOptions insert{.mode = RoundWriteMode(round),
                               .driver_validation = options.driver_validation};
    std::size_t count = docs.size();
    if (round == BulkRound::kAcknowledgedOneByOne && options.one_by_one_documents > 0) {
      count = std::min(count, options.one_by_one_documents);
    }
    progress.Begin(BulkRoundDescription(round), static_cast<double>(count));
    Clock::time_point start = Clock::now();
    Status inserted = round == BulkRound::kAcknowledgedOneByOne
                          ? InsertOneByOne(collection.get(), docs, count, insert, progress)
                          : InsertInMessages(collection.get(), docs, count, insert, progress);
    if (inserted.ok() && round == BulkRound::kUnacknowledgedBulkGle) {
      r.note = GetLastErrorNote(*client, options.database);
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    progress.End();
    QUARRY_RETURN_IF_ERROR(inserted.WithContext(BulkRoundDescription(round)));
    r.documents = static_cast<std::int64_t>(count);
    for (std::size_t i = 0; i < count; ++i)
      r.bytes += static_cast<std::int64_t>(docs.Bytes(i).size());
    QUARRY_ASSIGN_OR_RETURN(r.seen, CountDocuments(collection.get()));
    result.rounds.push_back(std::move(r));
  }
  QUARRY_RETURN_IF_ERROR(DropCollection(collection.get()));
  return result;
}

ResultTable BulkBenchTable(const BulkBenchOptions& options, const BulkBenchResult& result) {
  ResultTable table;
  table.benchmark = "bulk";
  table.title = "quarry bench bulk: the same documents inserted with each write pattern";
  table.parameters = {
      {"uri", options.uri},
      {"documents", static_cast<std::int64_t>(options.documents)},
      {"document bytes", static_cast<std::int64_t>(options.document_bytes)},
      {"shape", std::string(options.shape == DocumentShape::kRecord ? "record" : "listing")},
      {"seed", static_cast<std::int64_t>(options.seed)}};
  table.columns = {{"round", "round"},
                   {"write concern", "write_concern"},
                   {"documents", "documents"},
                   {"seconds", "seconds", 3},
                   {"documents/s", "documents_per_second", 0},
                   {"MB/s", "megabytes_per_second", 1},
                   {"seen after", "seen_after"},
                   {"all seen", "all_seen"},
                   {"time/doc vs w:1 bulk", "time_per_document_vs_acknowledged_bulk", 2},
                   {"note", "note"}};
  double baseline = 0;  // acknowledged bulk's seconds per document
  for (const BulkRoundResult& r : result.rounds) {
    if (r.round == BulkRound::kAcknowledgedBulk && r.documents > 0) {
      baseline = r.seconds / static_cast<double>(r.documents);
    }
  }
  for (const BulkRoundResult& r : result.rounds) {
    double seconds = std::max(r.seconds, 1e-9);
    std::string concern(WriteModeName(RoundWriteMode(r.round)));
    Cell relative;
    if (baseline > 0 && r.documents > 0) {
      relative = r.seconds / static_cast<double>(r.documents) / baseline;
    }
    table.rows.push_back({std::string(BulkRoundDescription(r.round)), concern, r.documents,
                          r.seconds, static_cast<double>(r.documents) / seconds,
                          static_cast<double>(r.bytes) / 1e6 / seconds, r.seen,
                          std::string(r.seen == r.documents ? "yes" : "no"), relative,
                          r.note.empty() ? Cell() : Cell(r.note)});
  }
  table.notes = {
      "seen after: countDocuments on the same connection right after the round returned. "
      "MB = 10^6 bytes of BSON."};
  return table;
}

ChartOptions BulkBenchChart(const ResultTable& table) {
  return {.label_columns = {table.ColumnIndex("round")},
          .value_columns = {table.ColumnIndex("documents_per_second")}};
}

}  // namespace quarry::tools::bench
