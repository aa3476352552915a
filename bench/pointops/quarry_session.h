// One connection to the server through the C driver, with the operations the benchmark times.
// Documents are {_id: <key>, v: <string>, ...}. Not thread-safe: one per client thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "tools/bench/document_set.h"
#include "tools/client/mongo_client.h"

namespace quarry::bench {

class QuarrySession {
 public:
  // Connects (and pings) as application `app_name`; every collection is in `db`.
  static StatusWith<std::unique_ptr<QuarrySession>> Connect(const std::string& uri,
                                                            const std::string& db,
                                                            const std::string& app_name);

  Status Ping();
  // insertOne({_id: key, v: value}), w:1.
  Status InsertOne(const std::string& collection, const std::string& key, const std::string& value);
  // Every document of `docs` in one ordered w:1 bulk write.
  Status InsertMany(const std::string& collection, const tools::bench::DocumentSet& docs);
  // find({_id: key}) with limit 1; fails unless the document is there with a string `v` of
  // `value_bytes` bytes.
  Status FindById(const std::string& collection, const std::string& key, std::size_t value_bytes);
  // Runs the find or the aggregation and reads every result; returns how many there were.
  StatusWith<std::int64_t> FindAll(const std::string& collection, const bson_t& filter);
  StatusWith<std::int64_t> AggregateAll(const std::string& collection, const bson_t& pipeline);
  Status Drop(const std::string& collection);

 private:
  QuarrySession(std::unique_ptr<tools::client::MongoClient> client, std::string db)
      : client_(std::move(client)), db_(std::move(db)) {}
  mongoc_collection_t* Handle(const std::string& collection);

  std::unique_ptr<tools::client::MongoClient> client_;
  std::string db_;
  std::map<std::string, tools::client::CollectionPtr> handles_;
};

}  // namespace quarry::bench
