// The driver calls the index benchmark times: finds (read to the end), their explain
// executionStats, and index builds.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::bench {

struct FindSpec {
  tools::client::BsonPtr filter{bson_new()};
  tools::client::BsonPtr sort{bson_new()};  // empty: no sort
  std::int64_t limit = 0;                   // 0: none
  bool collection_scan = false;             // hint {$natural: 1}
};

// What explain("executionStats") reports for a find.
struct ExplainStats {
  std::int64_t returned = 0;
  std::int64_t keys_examined = 0;
  std::int64_t docs_examined = 0;
  std::string plan;  // the winning plan's stages from the root down, e.g. "FETCH IXSCAN(price_1)"
};

StatusWith<ExplainStats> ExplainFind(tools::client::MongoClient& client, const std::string& db,
                                     const std::string& collection, const FindSpec& find);

struct FindTiming {
  double median_seconds = 0;
  std::int64_t returned = 0;  // documents the last run read
};

// Runs `find` `repeat` times, reading every result, and takes the median wall time.
StatusWith<FindTiming> TimeFind(mongoc_collection_t* collection, const FindSpec& find, int repeat);

struct IndexSpec {
  std::string name;
  std::vector<std::pair<std::string, int>> key;  // field, 1 or -1
  bool unique = false;
};

// createIndexes with one index; returns the seconds the command took.
StatusWith<double> BuildIndex(tools::client::MongoClient& client, const std::string& db,
                              const std::string& collection, const IndexSpec& index);

// dropIndexes of `index` by name.
Status DropIndex(tools::client::MongoClient& client, const std::string& db,
                 const std::string& collection, const IndexSpec& index);

}  // namespace quarry::bench
