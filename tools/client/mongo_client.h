// MongoClient: a `quarry` subcommand's connection to a server, over the MongoDB C driver. One
// single-threaded mongoc_client_t, so every operation goes down one socket in order and a w:0
// write is followed by the read after it on the same connection, as in an application.
#pragma once

#include <mongoc/mongoc.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace quarry::tools::client {

// Owns a heap bson_t (from bson_new or bson_copy). Not a unique_ptr: bson_t is over-aligned,
// and GCC warns (an error here) about the attribute on a template argument.
class BsonPtr {
 public:
  BsonPtr() : doc_(nullptr) {}  // holds none
  explicit BsonPtr(bson_t* doc) : doc_(doc) {}
  BsonPtr(BsonPtr&& other) noexcept : doc_(std::exchange(other.doc_, nullptr)) {}
  BsonPtr& operator=(BsonPtr&& other) noexcept {
    std::swap(doc_, other.doc_);
    return *this;
  }
  ~BsonPtr() {
    if (doc_ != nullptr) bson_destroy(doc_);
  }
  const bson_t* get() const { return doc_; }
  const bson_t& operator*() const { return *doc_; }

 private:
  bson_t* doc_;
};

struct CollectionDeleter {
  void operator()(mongoc_collection_t* collection) const { mongoc_collection_destroy(collection); }
};
using CollectionPtr = std::unique_ptr<mongoc_collection_t, CollectionDeleter>;

struct CursorDeleter {
  void operator()(mongoc_cursor_t* cursor) const { mongoc_cursor_destroy(cursor); }
};
using CursorPtr = std::unique_ptr<mongoc_cursor_t, CursorDeleter>;

// The wire compressors a client can ask for, "none" first.
const std::vector<std::string>& KnownCompressors();
bool IsKnownCompressor(std::string_view name);

struct ClientOptions {
  std::string uri;                  // any MongoDB connection string
  std::string compressor = "none";  // "none", or one the server must accept: snappy|zlib|zstd
  int zlib_level = -1;              // zlibCompressionLevel (-1..9); -1 keeps the URI's or default
  std::string app_name = "quarry";  // the handshake's client.application.name
};

// The server's wire byte counters (serverStatus.network). Physical bytes are what crossed the
// socket, compressed or not; logical bytes are the messages before compression.
struct NetworkCounters {
  std::int64_t bytes_in = 0;
  std::int64_t bytes_out = 0;
  std::int64_t physical_bytes_in = 0;
  std::int64_t physical_bytes_out = 0;
  std::int64_t requests = 0;

  NetworkCounters operator-(const NetworkCounters& earlier) const;
};

class MongoClient {
 public:
  // Connects, pings and, unless `compressor` is "none", checks that the server accepted that
  // compressor in the handshake. Fails with kHostUnreachable when no server answers, kBadValue
  // for a malformed URI or a refused compressor, or the server's own error.
  static StatusWith<std::unique_ptr<MongoClient>> Connect(const ClientOptions& options);
  ~MongoClient();
  MongoClient(const MongoClient&) = delete;
  MongoClient& operator=(const MongoClient&) = delete;

  // Runs `command` against database `db`. A reply with ok:0 fails with the server's code.
  StatusWith<BsonPtr> RunCommand(const std::string& db, const bson_t& command);
  CollectionPtr Collection(const std::string& db, const std::string& name);
  // serverStatus's network section. Fails with kBadValue if the server does not report
  // physicalBytesIn/physicalBytesOut.
  StatusWith<NetworkCounters> ReadNetworkCounters();

  mongoc_client_t* get() { return client_; }
  const std::string& compressor() const { return compressor_; }

 private:
  MongoClient(mongoc_client_t* client, std::string compressor)
      : client_(client), compressor_(std::move(compressor)) {}

  mongoc_client_t* client_;
  std::string compressor_;
};

// A Status for a failed driver call: the server's code for server errors, kHostUnreachable for
// connection and server-selection failures, kOperationFailed otherwise; `context` prefixes
// the driver's message.
Status DriverError(const bson_error_t& error, std::string_view context);

// base/allocator.h's TuneAllocator for a program that links the driver: the driver's counters
// file, made as its library loaded, is removed first, since the restarted process (the same
// pid) makes its own and would otherwise warn that it exists. Call first in main.
void TuneAllocator(char** argv);

}  // namespace quarry::tools::client
