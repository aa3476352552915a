// The server half: the vectors as documents, the search index's lifecycle, and $vectorSearch
// queries through the MongoDB C driver from one or more client threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "bench/vector/hnswlib_baseline.h"
#include "bench/vector/vector_set.h"
#include "tools/bench/document_set.h"
#include "tools/client/mongo_client.h"

namespace quarry::bench {

struct VectorIndexSpec {
  std::string name = "vector_index";
  std::size_t dimensions = 0;
  std::size_t max_edges = 16;             // hnswOptions.maxEdges
  std::size_t num_edge_candidates = 100;  // hnswOptions.numEdgeCandidates
  std::string quantization = "";          // "" leaves it out
};

// {_id: i, bucket: set.buckets[i], embedding: [doubles]} for every vector, in order.
tools::bench::DocumentSet VectorDocuments(const VectorSet& set);

// The `create` command: search indexes, unlike regular ones, need an existing collection.
Status CreateCollection(tools::client::MongoClient& client, const std::string& db,
                        const std::string& collection);

// createSearchIndexes with a cosine vector field `embedding` and a filter field `bucket`.
Status CreateVectorIndex(tools::client::MongoClient& client, const std::string& db,
                         const std::string& collection, const VectorIndexSpec& spec);
// Polls $listSearchIndexes until the index is READY. Fails if it reports FAILED or is not READY
// within `timeout_seconds`.
Status WaitUntilReady(tools::client::MongoClient& client, const std::string& db,
                      const std::string& collection, const std::string& index,
                      double timeout_seconds);

// dropSearchIndex, then polls until $listSearchIndexes no longer lists the index.
Status DropSearchIndex(tools::client::MongoClient& client, const std::string& db,
                       const std::string& collection, const std::string& index,
                       double timeout_seconds);

struct VectorQuery {
  std::size_t limit = 10;
  std::size_t num_candidates = 100;
  BucketFilter filter = {};  // max_bucket == kBuckets: no filter
  bool exact = false;
  // Project {_id, bucket}, which reads each matching document, instead of {_id} only, which
  // the server answers from the index.
  bool read_documents = false;
};

struct ServerTarget {
  std::string uri;
  std::string db;
  std::string collection;
  std::string index = "vector_index";
  int server_pid = 0;  // for the server's CPU per query; 0: not measured
};

// Runs the first `query_count` of `queries` as $vectorSearch aggregations shared out over
// `threads` clients (each its own connection, made before the clock starts), cycled until
// `min_seconds` have passed; the answers are the returned `_id`s.
StatusWith<SearchRun> ServerSearch(const ServerTarget& target, const VectorSet& queries,
                                   std::size_t query_count, const VectorQuery& query, int threads,
                                   double min_seconds = 0);

// Seconds for `count` pings from one client, one after another: the round-trip floor under
// every query.
StatusWith<double> ServerPings(const ServerTarget& target, std::size_t count);

// VmRSS of process `pid` in bytes (from /proc/<pid>/status), or -1 when it cannot be read.
std::int64_t ResidentBytes(int pid);
// RssAnon: the resident part that is anonymous memory (heap), not file pages.
std::int64_t AnonymousResidentBytes(int pid);

}  // namespace quarry::bench
