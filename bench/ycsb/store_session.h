// One client connection to a store under test, with YCSB's operations on its one table of
// records: a Quarry collection, a PostgreSQL table of JSONB documents, or Redis hashes.
// Not thread-safe: one per client thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "bench/ycsb/record.h"

namespace quarry::bench {

class StoreSession {
 public:
  virtual ~StoreSession() = default;

  // Empties the store's table (creating it if needed), before a load.
  virtual Status Reset() = 0;
  virtual Status Insert(const std::string& key, const Record& record) = 0;
  // Reads the whole record with `key`; returns how many of its fields came back whole
  // (kFieldCount for an intact record, 0 when there is none).
  virtual StatusWith<int> Read(const std::string& key) = 0;
  // Sets one field of the record with `key`; returns false when there was no such record.
  virtual StatusWith<bool> Update(const std::string& key, int field_idx,
                                  const std::string& value) = 0;
  // Reads up to `count` records with keys >= `start`, in key order; returns whether they passed
  // ScanCheck.
  virtual StatusWith<bool> Scan(const std::string& start, int count) = 0;
};

using StoreConnector = std::function<StatusWith<std::unique_ptr<StoreSession>>()>;

// Collection "usertable" of database `db` through the C driver, w:1 (the default).
StatusWith<std::unique_ptr<StoreSession>> ConnectQuarryStore(const std::string& uri,
                                                             const std::string& db);
// Table usertable(id text primary key, doc jsonb not null) of PostgreSQL on 127.0.0.1:`port`,
// database postgres, as `user`, each statement prepared once per connection.
StatusWith<std::unique_ptr<StoreSession>> ConnectPostgresStore(int port, const std::string& user);
// A hash per record and a sorted set "usertable" of every key, in Redis on 127.0.0.1:`port`.
StatusWith<std::unique_ptr<StoreSession>> ConnectRedisStore(int port);

}  // namespace quarry::bench
