// The parts of the index benchmark, each measured against its baseline in the same run and
// returned as a table: N indexes vs none on insert, an index build vs a collection scan,
// indexed finds vs the same finds by collection scan, and point reads vs Redis GETs.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "bench/indexes/listing_set.h"
#include "bench/indexes/queries.h"
#include "tools/client/mongo_client.h"
#include "tools/client/result_table.h"

namespace quarry::bench {

struct BenchSettings {
  std::string uri;
  std::string db = "quarry_bench";
  std::string collection = "index_bench";                 // loaded once, then indexed and queried
  std::string insert_collection = "index_bench_inserts";  // the rounds with indexes
  std::size_t batch = 1'000;
  int redis_port = 0;   // 0: no Redis rows
  double seconds = 5;   // per point-read row
  int repeat = 5;       // runs per timed find (the median is shown)
  int read_rounds = 3;  // rounds of the point-read rows (the median share of Redis is shown)
  // Builds of each index, dropped in between (the median is shown). The dropped builds' keys
  // stay in the index family until compactions remove them, which the insert rounds then pay
  // for: more than one round is for measuring builds alone.
  int build_rounds = 1;
  // Repetitions of the insert rounds (0, 1, 3, 5 indexes, in that order each time): each ratio
  // is to the round with none of the same repetition, and the repetition with the median ratio
  // is shown.
  int insert_repeat = 3;
  int server_pid = 0;  // a local server's PID, for its CPU time; 0: not shown
};

// The secondary indexes a round with `count` indexes creates before inserting, in order.
std::vector<IndexSpec> SecondaryIndexes(std::size_t count);

struct InsertRound {
  std::size_t indexes = 0;
  bool load = false;   // the load of the queried collection, into a fresh database
  int repetition = 0;  // of the insert rounds (BenchSettings::insert_repeat)
  double seconds = 0;
  double server_cpu_seconds = -1;  // -1: unknown
};

// Creates SecondaryIndexes(indexes) on an empty `collection`, then inserts every document in
// w:1 bulk writes of settings.batch, checks the count, and drops the collection unless `keep`.
StatusWith<InsertRound> InsertWithIndexes(tools::client::MongoClient& client,
                                          const BenchSettings& settings, const ListingSet& set,
                                          const std::string& collection, std::size_t indexes,
                                          bool keep);
tools::client::ResultTable InsertTable(const BenchSettings& settings, const ListingSet& set,
                                       const std::vector<InsertRound>& rounds);

// Builds SecondaryIndexes(4) on settings.collection, each right after a timed collection scan
// of it, so each build is compared with a scan made under the same conditions.
StatusWith<tools::client::ResultTable> BuildPart(tools::client::MongoClient& client,
                                                 const BenchSettings& settings,
                                                 const ListingSet& set);

// Equality finds on indexed fields, and find(range).sort(indexed).limit(10), each also by
// collection scan. REQUIRES: BuildPart ran.
StatusWith<tools::client::ResultTable> EqualityPart(tools::client::MongoClient& client,
                                                    const BenchSettings& settings,
                                                    const ListingSet& set);
StatusWith<tools::client::ResultTable> RangeSortPart(tools::client::MongoClient& client,
                                                     const BenchSettings& settings);

// Point reads by _id and by the unique listing_id, 1 and 4 threads, and Redis GETs of the
// same documents. REQUIRES: BuildPart ran.
StatusWith<tools::client::ResultTable> PointReadPart(const BenchSettings& settings,
                                                     const ListingSet& set);

}  // namespace quarry::bench
