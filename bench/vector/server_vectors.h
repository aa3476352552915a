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

// createSearchIndexes with a cosine vector field `embedding` and a filter field `bucket`.
Status CreateVectorIndex(tools::client::MongoClient& client, const std::string& db,
                         const std::string& collection, const VectorIndexSpec& spec);

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

}  // namespace quarry::bench
