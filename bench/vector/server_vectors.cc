// Search-index commands and $vectorSearch through libmongoc. Connections are made before the
// clock starts, so queries/s counts queries only.
#include "bench/vector/server_vectors.h"

#include <chrono>
#include <latch>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "bench/vector/cpu_time.h"
#include "bench/vector/query_cycle.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;
using Clock = std::chrono::steady_clock;

void AppendVector(bson_t* parent, const char* key, std::span<const float> vector) {
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(parent, key, &array);
  char index_key[16];
  for (std::size_t dim = 0; dim < vector.size(); ++dim) {
    const char* name;
    bson_uint32_to_string(static_cast<std::uint32_t>(dim), &name, index_key, sizeof index_key);
    BSON_APPEND_DOUBLE(&array, name, vector[dim]);
  }
  bson_append_array_end(parent, &array);
}

// [{$vectorSearch: {...}}, {$project: {_id: 1}}] ({_id: 1, bucket: 1} to read the documents)
tc::BsonPtr SearchPipeline(const std::string& index, std::span<const float> vector,
                           const VectorQuery& query) {
  bson_t* pipeline = bson_new();
  bson_t stage, search, project;
  BSON_APPEND_DOCUMENT_BEGIN(pipeline, "0", &stage);
  BSON_APPEND_DOCUMENT_BEGIN(&stage, "$vectorSearch", &search);
  BSON_APPEND_UTF8(&search, "index", index.c_str());
  BSON_APPEND_UTF8(&search, "path", "embedding");
  AppendVector(&search, "queryVector", vector);
  BSON_APPEND_INT64(&search, "limit", static_cast<std::int64_t>(query.limit));
  if (query.exact) {
    BSON_APPEND_BOOL(&search, "exact", true);
  } else {
    BSON_APPEND_INT64(&search, "numCandidates", static_cast<std::int64_t>(query.num_candidates));
  }
  if (query.filter.max_bucket < kBuckets) {
    bson_t filter, range;
    BSON_APPEND_DOCUMENT_BEGIN(&search, "filter", &filter);
    BSON_APPEND_DOCUMENT_BEGIN(&filter, "bucket", &range);
    BSON_APPEND_INT32(&range, "$lt", query.filter.max_bucket);
    bson_append_document_end(&filter, &range);
    bson_append_document_end(&search, &filter);
  }
  bson_append_document_end(&stage, &search);
  bson_append_document_end(pipeline, &stage);
  BSON_APPEND_DOCUMENT_BEGIN(pipeline, "1", &stage);
  BSON_APPEND_DOCUMENT_BEGIN(&stage, "$project", &project);
  BSON_APPEND_INT32(&project, "_id", 1);
  if (query.read_documents) BSON_APPEND_INT32(&project, "bucket", 1);
  bson_append_document_end(&stage, &project);
  bson_append_document_end(pipeline, &stage);
  return tc::BsonPtr(pipeline);
}

// Runs `pipeline` on `collection` and calls `each` with every document it returns.
template <typename Each>
Status Aggregate(mongoc_collection_t* collection, const bson_t& pipeline, Each each) {
  mongoc_cursor_t* cursor =
      mongoc_collection_aggregate(collection, MONGOC_QUERY_NONE, &pipeline, nullptr, nullptr);
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) each(*doc);
  bson_error_t error;
  Status status;
  if (mongoc_cursor_error(cursor, &error)) status = tc::DriverError(error, "aggregate failed");
  mongoc_cursor_destroy(cursor);
  return status;
}

StatusWith<std::uint32_t> IdOf(const bson_t& doc) {
  bson_iter_t iter;
  if (bson_iter_init_find(&iter, &doc, "_id")) {
    if (BSON_ITER_HOLDS_INT32(&iter)) return static_cast<std::uint32_t>(bson_iter_int32(&iter));
    if (BSON_ITER_HOLDS_INT64(&iter)) return static_cast<std::uint32_t>(bson_iter_int64(&iter));
  }
  return Status(ErrorCode::kOperationFailed, "a $vectorSearch result has no integer _id");
}

}  // namespace

tools::bench::DocumentSet VectorDocuments(const VectorSet& set) {
  tools::bench::DocumentSet docs;
  bson_t doc = BSON_INITIALIZER;
  for (std::size_t index = 0; index < set.size(); ++index) {
    bson_reinit(&doc);
    BSON_APPEND_INT32(&doc, "_id", static_cast<std::int32_t>(index));
    BSON_APPEND_INT32(&doc, "bucket", set.buckets[index]);
    AppendVector(&doc, "embedding", set.Vector(index));
    docs.Append(&doc);
  }
  bson_destroy(&doc);
  return docs;
}

Status CreateVectorIndex(tc::MongoClient& client, const std::string& db,
                         const std::string& collection, const VectorIndexSpec& spec) {
  bson_t command = BSON_INITIALIZER;
  bson_t indexes, index, definition, fields, vector, hnsw, filter;
  BSON_APPEND_UTF8(&command, "createSearchIndexes", collection.c_str());
  BSON_APPEND_ARRAY_BEGIN(&command, "indexes", &indexes);
  BSON_APPEND_DOCUMENT_BEGIN(&indexes, "0", &index);
  BSON_APPEND_UTF8(&index, "name", spec.name.c_str());
  BSON_APPEND_UTF8(&index, "type", "vectorSearch");
  BSON_APPEND_DOCUMENT_BEGIN(&index, "definition", &definition);
  BSON_APPEND_ARRAY_BEGIN(&definition, "fields", &fields);
  BSON_APPEND_DOCUMENT_BEGIN(&fields, "0", &vector);
  BSON_APPEND_UTF8(&vector, "type", "vector");
  BSON_APPEND_UTF8(&vector, "path", "embedding");
  BSON_APPEND_INT64(&vector, "numDimensions", static_cast<std::int64_t>(spec.dimensions));
  BSON_APPEND_UTF8(&vector, "similarity", "cosine");
  if (!spec.quantization.empty()) {
    BSON_APPEND_UTF8(&vector, "quantization", spec.quantization.c_str());
  }
  BSON_APPEND_DOCUMENT_BEGIN(&vector, "hnswOptions", &hnsw);
  BSON_APPEND_INT64(&hnsw, "maxEdges", static_cast<std::int64_t>(spec.max_edges));
  BSON_APPEND_INT64(&hnsw, "numEdgeCandidates",
                    static_cast<std::int64_t>(spec.num_edge_candidates));
  bson_append_document_end(&vector, &hnsw);
  bson_append_document_end(&fields, &vector);
  BSON_APPEND_DOCUMENT_BEGIN(&fields, "1", &filter);
  BSON_APPEND_UTF8(&filter, "type", "filter");
  BSON_APPEND_UTF8(&filter, "path", "bucket");
  bson_append_document_end(&fields, &filter);
  bson_append_array_end(&definition, &fields);
  bson_append_document_end(&index, &definition);
  bson_append_document_end(&indexes, &index);
  bson_append_array_end(&command, &indexes);
  StatusWith<tc::BsonPtr> reply = client.RunCommand(db, command);
  bson_destroy(&command);
  return reply.status();
}

StatusWith<SearchRun> ServerSearch(const ServerTarget& target, const VectorSet& queries,
                                   std::size_t query_count, const VectorQuery& query, int threads,
                                   double min_seconds) {
  // Built before the clock starts, like the connections: the clock times the server.
  std::vector<tc::BsonPtr> pipelines;
  pipelines.reserve(query_count);
  for (std::size_t query_idx = 0; query_idx < query_count; ++query_idx) {
    pipelines.push_back(SearchPipeline(target.index, queries.Vector(query_idx), query));
  }
  SearchRun run;
  run.answers.resize(query_count);
  std::vector<Status> statuses(threads);
  QueryCycle cycle(query_count, min_seconds);
  std::latch connected(threads + 1);
  std::vector<std::thread> workers;
  for (int thread_idx = 0; thread_idx < threads; ++thread_idx) {
    workers.emplace_back([&, thread_idx] {
      StatusWith<std::unique_ptr<tc::MongoClient>> client =
          tc::MongoClient::Connect({.uri = target.uri, .app_name = "vector_bench"});
      connected.arrive_and_wait();
      if (!client.ok()) {
        statuses[thread_idx] = client.status();
        return;
      }
      tc::CollectionPtr handle = client.value()->Collection(target.db, target.collection);
      std::vector<std::uint32_t> answer;
      for (std::optional<QueryCycle::Turn> turn = cycle.Next(); turn; turn = cycle.Next()) {
        answer.clear();
        Status id_status;
        Status status = Aggregate(handle.get(), *pipelines[turn->query], [&](const bson_t& doc) {
          StatusWith<std::uint32_t> id = IdOf(doc);
          if (id.ok()) {
            answer.push_back(id.value());
          } else {
            id_status = id.status();
          }
        });
        if (status.ok()) status = id_status;
        if (!status.ok()) {
          statuses[thread_idx] = status;
          return;
        }
        if (turn->first_pass) run.answers[turn->query] = answer;
      }
    });
  }
  connected.arrive_and_wait();
  const CpuMeter cpu(target.server_pid);
  cycle.Start();
  for (std::thread& worker : workers) worker.join();
  run.seconds = cycle.SecondsSinceStart();
  const CpuMeter::Used used = cpu.Stop();
  run.own_cpu_seconds = used.own_seconds;
  run.server_cpu_seconds = used.pid_seconds;
  run.queries = cycle.handed_out();
  for (const Status& status : statuses) QUARRY_RETURN_IF_ERROR(status);
  return run;
}

StatusWith<double> ServerPings(const ServerTarget& target, std::size_t count) {
  QUARRY_ASSIGN_OR_RETURN(
      std::unique_ptr<tc::MongoClient> client,
      tc::MongoClient::Connect({.uri = target.uri, .app_name = "vector_bench"}));
  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  const Clock::time_point start = Clock::now();
  bson_error_t error;
  for (std::size_t ping_idx = 0; ping_idx < count; ++ping_idx) {
    if (!mongoc_client_command_simple(client->get(), target.db.c_str(), &ping, nullptr, nullptr,
                                      &error)) {
      bson_destroy(&ping);
      return tc::DriverError(error, "ping failed");
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  bson_destroy(&ping);
  return seconds;
}

}  // namespace quarry::bench
