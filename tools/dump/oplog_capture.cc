#include "tools/dump/oplog_capture.h"

#include <string_view>

#include "tools/dump/bson_fields.h"

namespace quarry::tools::dumping {
namespace {

// How long an empty getMore waits for a change before it answers that there is none now.
constexpr std::int64_t kMaxAwaitMillis = 100;

// The server's clusterTime now, from a command's operationTime.
StatusWith<std::pair<std::uint32_t, std::uint32_t>> ClusterTimeNow(client::MongoClient& client) {
  bson_t* ping = BCON_NEW("ping", BCON_INT32(1));
  auto reply = client.RunCommand("admin", *ping);
  bson_destroy(ping);
  if (!reply.ok()) return reply.status();
  bson_iter_t iter;
  if (!bson_iter_init_find(&iter, reply.value().get(), "operationTime") ||
      !BSON_ITER_HOLDS_TIMESTAMP(&iter)) {
    return Status(ErrorCode::kOperationFailed,
                  "the server reports no operationTime, which --oplog needs");
  }
  std::uint32_t t = 0, i = 0;
  bson_iter_timestamp(&iter, &t, &i);
  return std::make_pair(t, i);
}

}  // namespace

StatusWith<bool> OplogEntryOf(const bson_t& event, bson_t* entry) {
  const std::string type = Utf8Field(event, "operationType");
  bson_t ns;
  if (!SubDocument(event, "ns", &ns)) return false;
  const std::string name = Utf8Field(ns, "db") + "." + Utf8Field(ns, "coll");
  if (type == "drop" || type == "rename" || type == "dropDatabase" || type == "invalidate") {
    return Status(ErrorCode::kOperationFailed,
                  name + " saw a " + type +
                      " during the dump, which an oplog of documents cannot replay; dump again");
  }
  const char* op = type == "insert"                        ? "i"
                   : type == "update" || type == "replace" ? "u"
                   : type == "delete"                      ? "d"
                                                           : nullptr;
  if (op == nullptr) return false;
  bson_iter_t iter;
  std::uint32_t t = 0, i = 0;
  if (bson_iter_init_find(&iter, &event, "clusterTime") && BSON_ITER_HOLDS_TIMESTAMP(&iter)) {
    bson_iter_timestamp(&iter, &t, &i);
  }
  bson_t key;
  if (!SubDocument(event, "documentKey", &key)) return false;
  bson_t full;
  const bool has_full = SubDocument(event, "fullDocument", &full);
  // An update whose document is gone by the lookup is followed by its delete.
  if (*op != 'd' && !has_full) return false;
  BSON_APPEND_TIMESTAMP(entry, "ts", t, i);
  BSON_APPEND_INT64(entry, "t", 1);
  BSON_APPEND_INT32(entry, "v", 2);
  BSON_APPEND_UTF8(entry, "op", op);
  BSON_APPEND_UTF8(entry, "ns", name.c_str());
  BSON_APPEND_DOCUMENT(entry, "o", *op == 'd' ? &key : &full);
  if (*op == 'u') BSON_APPEND_DOCUMENT(entry, "o2", &key);
  if (bson_iter_init_find(&iter, &event, "wallTime") && BSON_ITER_HOLDS_DATE_TIME(&iter)) {
    BSON_APPEND_DATE_TIME(entry, "wall", bson_iter_date_time(&iter));
  }
  return true;
}

StatusWith<std::unique_ptr<OplogCapture>> OplogCapture::Start(const std::string& uri) {
  auto connected = client::MongoClient::Connect({.uri = uri, .app_name = "quarry-dump-oplog"});
  if (!connected.ok()) return connected.status();
  bson_t pipeline = BSON_INITIALIZER;
  bson_t* opts = BCON_NEW("fullDocument", BCON_UTF8("updateLookup"), "maxAwaitTimeMS",
                          BCON_INT64(kMaxAwaitMillis));
  mongoc_change_stream_t* stream = mongoc_client_watch(connected.value()->get(), &pipeline, opts);
  bson_destroy(opts);
  bson_destroy(&pipeline);
  bson_error_t error;
  const bson_t* reply = nullptr;
  if (mongoc_change_stream_error_document(stream, &error, &reply)) {
    mongoc_change_stream_destroy(stream);
    return client::DriverError(error, "opening a change stream for --oplog");
  }
  return std::unique_ptr<OplogCapture>(new OplogCapture(std::move(connected.value()), stream));
}

OplogCapture::~OplogCapture() { mongoc_change_stream_destroy(stream_); }

StatusWith<std::int64_t> OplogCapture::Drain(OplogEntrySink* sink) {
  auto end = ClusterTimeNow(*client_);
  if (!end.ok()) return end.status();
  std::int64_t written = 0;
  while (true) {
    const bson_t* event = nullptr;
    if (!mongoc_change_stream_next(stream_, &event)) {
      bson_error_t error;
      const bson_t* reply = nullptr;
      if (mongoc_change_stream_error_document(stream_, &error, &reply)) {
        return client::DriverError(error, "reading the change stream for --oplog");
      }
      return written;  // caught up: an empty batch came after the end
    }
    bson_iter_t iter;
    if (bson_iter_init_find(&iter, event, "clusterTime") && BSON_ITER_HOLDS_TIMESTAMP(&iter)) {
      std::uint32_t t = 0, i = 0;
      bson_iter_timestamp(&iter, &t, &i);
      if (std::make_pair(t, i) > end.value()) return written;
    }
    bson_t entry = BSON_INITIALIZER;
    auto converted = OplogEntryOf(*event, &entry);
    Status status = converted.ok() ? Status::OK() : converted.status();
    if (status.ok() && converted.value()) {
      status = sink->Write(entry);
      ++written;
    }
    bson_destroy(&entry);
    if (!status.ok()) return status;
  }
}

}  // namespace quarry::tools::dumping
