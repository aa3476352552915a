// Splits a collection into contiguous _id ranges that parallel readers copy at once. The ranges
// are find filters on _id; together they cover the collection when every _id sorts in one type
// bracket (all numbers, all strings, all ObjectIds, ...), which the smallest and the largest _id
// decide, since _id order sorts brackets apart. Otherwise, or for a small collection, there is
// one range: the empty filter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::tools::dumping {

// Ranges are made only when each holds at least this many documents.
inline constexpr std::int64_t kMinDocumentsPerRange = 10'000;

// Up to `ranges` filters, in _id order. The split points are the _ids at even positions of
// the collection's _id order (found with skip), so ranges hold about equal counts.
StatusWith<std::vector<client::BsonPtr>> SplitIdRanges(client::MongoClient& source,
                                                       const std::string& db,
                                                       const std::string& collection, int ranges);

}  // namespace quarry::tools::dumping
