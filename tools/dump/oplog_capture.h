// The oplog of a point-in-time dump (--oplog): every change committed while the dump runs,
// read from a change stream over the whole deployment that opens before the first collection is
// read, and written as oplog entries (op "i", "u", "d") that a restore replays to bring the
// collections to the moment the dump ended. An update is kept as the document after it (a
// replacement), which mongorestore's --oplogReplay applies too.
#pragma once

#include <mongoc/mongoc.h>

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::tools::dumping {

// Receives the oplog entries as they are read.
class OplogEntrySink {
 public:
  virtual ~OplogEntrySink() = default;
  virtual Status Write(const bson_t& entry) = 0;
};

class OplogCapture {
 public:
  // Opens the change stream (its own connection). Fails when the server has no change streams.
  static StatusWith<std::unique_ptr<OplogCapture>> Start(const std::string& uri);
  ~OplogCapture();

  // Reads the changes committed up to now, handing each oplog entry to `sink`; returns how
  // many. A collection dropped or renamed during the dump is an error: the dump cannot say
  // what it held.
  StatusWith<std::int64_t> Drain(OplogEntrySink* sink);

 private:
  OplogCapture(std::unique_ptr<client::MongoClient> client, mongoc_change_stream_t* stream)
      : client_(std::move(client)), stream_(stream) {}

  std::unique_ptr<client::MongoClient> client_;
  mongoc_change_stream_t* stream_;
};

// Turns a change event into an oplog entry in `entry` (empty). False for events that change no
// documents of their own; an error for a drop or rename.
StatusWith<bool> OplogEntryOf(const bson_t& event, bson_t* entry);

}  // namespace quarry::tools::dumping
