// The parts of the point-operations benchmark, each returned as a table: small writes and
// reads against Redis, many clients, small writes after a bulk load, short requests beside slow
// ones, and system calls per request.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/result_table.h"

namespace quarry::bench {

struct PointOpsSettings {
  std::string uri;
  std::string db = "quarry_pointops";
  int redis_port = 0;                 // Redis on 127.0.0.1; 0: no Redis rows
  int server_pid = 0;                 // for server CPU per op; 0: not shown
  int redis_pid = 0;                  // for Redis's CPU per op; 0: not shown
  double seconds = 5;                 // per timed row
  std::vector<int> threads = {1, 4};  // client threads of the key-value rows
  std::vector<std::size_t> value_bytes = {100, 1'000};
  std::size_t max_keys = 200'000;  // written at most by one write row
  int many_clients = 64;
  std::size_t bulk_documents = 100'000;  // the bulk load between the after-bulk part's rows
  std::size_t big_documents = 200'000;   // the slow commands' collection
  std::size_t big_document_bytes = 1'000;
  int slow_clients_per_kind = 2;
  bool strace = false;
  double strace_seconds = 3;
};

// Keys the key-value rows wrote at one value size, for the parts that read them again: keys
// [0, count) of a Quarry collection, and of Redis under a prefix.
struct WrittenKeys {
  std::string collection;
  std::size_t value_bytes = 0;
  std::size_t count = 0;
  std::string redis_prefix;
  std::size_t redis_count = 0;
};

// insert_one vs Redis SET, then find by _id vs Redis GET, at each value size and thread
// count; keys are written one at a time, then read at random. Appends each size's keys to
// `*written`.
StatusWith<tools::client::ResultTable> KeyValuePart(const PointOpsSettings& settings,
                                                    std::vector<WrittenKeys>* written);

// find by _id from 4 clients, then from settings.many_clients, over `keys`, each after the
// same number of Redis GET clients.
StatusWith<tools::client::ResultTable> ManyClientsPart(const PointOpsSettings& settings,
                                                       const WrittenKeys& keys);

// insert_one from one client for settings.seconds, then one insert_many of
// settings.bulk_documents documents into another collection, then insert_one again: what a bulk
// load leaves behind for later small writes.
StatusWith<tools::client::ResultTable> AfterBulkPart(const PointOpsSettings& settings);

// Loads settings.big_documents documents, then times ping and find by _id from one client
// alone, and again while other clients repeat a $group over the whole collection and an
// unanchored $regex find.
StatusWith<tools::client::ResultTable> BesideSlowPart(const PointOpsSettings& settings);

// System calls of the server per find by _id from one client, counted by strace -c. A table
// with a note instead of rows when strace cannot run.
StatusWith<tools::client::ResultTable> SyscallPart(const PointOpsSettings& settings,
                                                   const WrittenKeys& keys);

}  // namespace quarry::bench
