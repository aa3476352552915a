// Finds, explains and index builds through the C driver.
#include "bench/indexes/queries.h"

#include <algorithm>
#include <chrono>

namespace quarry::bench {
namespace {

using tools::client::BsonPtr;
using tools::client::DriverError;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The options of a find command (sort, limit, hint) as the driver's opts or explain's fields.
void AppendFindOptions(const FindSpec& find, bson_t* out) {
  if (!bson_empty(find.sort.get())) BSON_APPEND_DOCUMENT(out, "sort", find.sort.get());
  if (find.limit > 0) BSON_APPEND_INT64(out, "limit", find.limit);
  if (find.collection_scan) {
    bson_t hint;
    BSON_APPEND_DOCUMENT_BEGIN(out, "hint", &hint);
    BSON_APPEND_INT32(&hint, "$natural", 1);
    bson_append_document_end(out, &hint);
  }
}

std::int64_t Int64At(const bson_t& doc, const char* dotted_path) {
  bson_iter_t iter;
  bson_iter_t field;
  if (bson_iter_init(&iter, &doc) && bson_iter_find_descendant(&iter, dotted_path, &field) &&
      BSON_ITER_HOLDS_NUMBER(&field)) {
    return bson_iter_as_int64(&field);
  }
  return -1;
}

// Follows inputStage (or the first of inputStages) from `stage` down, naming each stage and
// the index an IXSCAN reads.
std::string DescribePlan(bson_iter_t stage) {
  std::string plan;
  for (int depth = 0; depth < 16; ++depth) {
    bson_iter_t fields;
    if (!BSON_ITER_HOLDS_DOCUMENT(&stage) || !bson_iter_recurse(&stage, &fields)) break;
    std::string name;
    std::string index;
    bool has_child = false;
    bson_iter_t child;
    while (bson_iter_next(&fields)) {
      std::string_view key = bson_iter_key(&fields);
      if (key == "stage" && BSON_ITER_HOLDS_UTF8(&fields)) {
        name = bson_iter_utf8(&fields, nullptr);
      } else if (key == "indexName" && BSON_ITER_HOLDS_UTF8(&fields)) {
        index = bson_iter_utf8(&fields, nullptr);
      } else if (key == "inputStage") {
        child = fields;
        has_child = true;
      } else if (key == "inputStages" && BSON_ITER_HOLDS_ARRAY(&fields) &&
                 bson_iter_recurse(&fields, &child) && bson_iter_next(&child)) {
        has_child = true;
      }
    }
    if (!plan.empty()) plan += ' ';
    plan += index.empty() ? name : name + "(" + index + ")";
    if (!has_child) break;
    stage = child;
  }
  return plan;
}

}  // namespace

StatusWith<ExplainStats> ExplainFind(tools::client::MongoClient& client, const std::string& db,
                                     const std::string& collection, const FindSpec& find) {
  bson_t* cmd = bson_new();
  BsonPtr command(cmd);
  bson_t inner;
  BSON_APPEND_DOCUMENT_BEGIN(cmd, "explain", &inner);
  BSON_APPEND_UTF8(&inner, "find", collection.c_str());
  BSON_APPEND_DOCUMENT(&inner, "filter", find.filter.get());
  AppendFindOptions(find, &inner);
  bson_append_document_end(cmd, &inner);
  BSON_APPEND_UTF8(cmd, "verbosity", "executionStats");
  QUARRY_ASSIGN_OR_RETURN(BsonPtr reply, client.RunCommand(db, *command));
  ExplainStats stats;
  stats.returned = Int64At(*reply, "executionStats.nReturned");
  stats.keys_examined = Int64At(*reply, "executionStats.totalKeysExamined");
  stats.docs_examined = Int64At(*reply, "executionStats.totalDocsExamined");
  bson_iter_t iter;
  bson_iter_t stage;
  if (bson_iter_init(&iter, reply.get()) &&
      bson_iter_find_descendant(&iter, "executionStats.executionStages", &stage)) {
    stats.plan = DescribePlan(stage);
  }
  return stats;
}

StatusWith<FindTiming> TimeFind(mongoc_collection_t* collection, const FindSpec& find, int repeat) {
  bson_t opts = BSON_INITIALIZER;
  AppendFindOptions(find, &opts);
  std::vector<double> seconds;
  FindTiming timing;
  Status status;
  for (int run = 0; run < std::max(repeat, 1) && status.ok(); ++run) {
    auto start = std::chrono::steady_clock::now();
    mongoc_cursor_t* cursor =
        mongoc_collection_find_with_opts(collection, find.filter.get(), &opts, nullptr);
    const bson_t* doc;
    std::int64_t returned = 0;
    while (mongoc_cursor_next(cursor, &doc)) ++returned;
    bson_error_t error;
    if (mongoc_cursor_error(cursor, &error)) status = DriverError(error, "find failed");
    mongoc_cursor_destroy(cursor);
    seconds.push_back(SecondsSince(start));
    timing.returned = returned;
  }
  bson_destroy(&opts);
  QUARRY_RETURN_IF_ERROR(status);
  std::sort(seconds.begin(), seconds.end());
  timing.median_seconds = seconds[seconds.size() / 2];
  return timing;
}

StatusWith<double> BuildIndex(tools::client::MongoClient& client, const std::string& db,
                              const std::string& collection, const IndexSpec& index) {
  bson_t* cmd = bson_new();
  BsonPtr command(cmd);
  BSON_APPEND_UTF8(cmd, "createIndexes", collection.c_str());
  bson_t indexes;
  bson_t spec;
  bson_t key;
  BSON_APPEND_ARRAY_BEGIN(cmd, "indexes", &indexes);
  BSON_APPEND_DOCUMENT_BEGIN(&indexes, "0", &spec);
  BSON_APPEND_DOCUMENT_BEGIN(&spec, "key", &key);
  for (const auto& [field, direction] : index.key)
    BSON_APPEND_INT32(&key, field.c_str(), direction);
  bson_append_document_end(&spec, &key);
  BSON_APPEND_UTF8(&spec, "name", index.name.c_str());
  if (index.unique) BSON_APPEND_BOOL(&spec, "unique", true);
  bson_append_document_end(&indexes, &spec);
  bson_append_array_end(cmd, &indexes);
  auto start = std::chrono::steady_clock::now();
  StatusWith<BsonPtr> reply = client.RunCommand(db, *command);
  QUARRY_RETURN_IF_ERROR(reply);
  return SecondsSince(start);
}

Status DropIndex(tools::client::MongoClient& client, const std::string& db,
                 const std::string& collection, const IndexSpec& index) {
  bson_t* cmd = bson_new();
  BsonPtr command(cmd);
  BSON_APPEND_UTF8(cmd, "dropIndexes", collection.c_str());
  BSON_APPEND_UTF8(cmd, "index", index.name.c_str());
  return client.RunCommand(db, *command).status();
}

}  // namespace quarry::bench
