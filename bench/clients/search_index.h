// A search index's lifecycle through the MongoDB C driver, for the benchmarks that build one
// (vectorSearch or search): the collection it needs, and polling $listSearchIndexes until the
// index is READY or gone.
#pragma once

#include <string>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::bench {

// The `create` command: search indexes, unlike regular ones, need an existing collection.
Status CreateCollection(tools::client::MongoClient& client, const std::string& db,
                        const std::string& collection);

// Polls $listSearchIndexes until the index is READY. Fails if it reports FAILED or is not READY
// within `timeout_seconds`.
Status WaitUntilReady(tools::client::MongoClient& client, const std::string& db,
                      const std::string& collection, const std::string& index,
                      double timeout_seconds);

// dropSearchIndex, then polls until $listSearchIndexes no longer lists the index.
Status DropSearchIndex(tools::client::MongoClient& client, const std::string& db,
                       const std::string& collection, const std::string& index,
                       double timeout_seconds);

}  // namespace quarry::bench
