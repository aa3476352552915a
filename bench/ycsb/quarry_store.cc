// YCSB's operations through the MongoDB C driver: find by _id, updateOne with $set, and a
// range find sorted by _id, each answer checked for whole records.
#include "bench/ycsb/store_session.h"
#include "tools/client/mongo_client.h"

namespace quarry::bench {
namespace {

namespace tc = tools::client;

constexpr const char* kCollection = "usertable";

// The record fields of `doc` that came back whole.
int RecordFields(const bson_t* doc) {
  int fields = 0;
  bson_iter_t iter;
  if (!bson_iter_init(&iter, doc)) return 0;
  while (bson_iter_next(&iter)) {
    if (!BSON_ITER_HOLDS_UTF8(&iter)) continue;
    std::uint32_t length = 0;
    bson_iter_utf8(&iter, &length);
    if (IsRecordField(bson_iter_key(&iter), length)) ++fields;
  }
  return fields;
}

void AppendKey(bson_t* doc, const char* name, const std::string& key) {
  bson_append_utf8(doc, name, -1, key.data(), static_cast<int>(key.size()));
}

class QuarryStore : public StoreSession {
 public:
  explicit QuarryStore(std::unique_ptr<tc::MongoClient> client, const std::string& db)
      : client_(std::move(client)), collection_(client_->Collection(db, kCollection)) {}

  Status Reset() override {
    bson_error_t error;
    if (mongoc_collection_drop(collection_.get(), &error)) return Status::OK();
    // Dropping a collection that does not exist is not a failure here.
    if (error.code == static_cast<std::uint32_t>(ErrorCode::kNamespaceNotFound)) {
      return Status::OK();
    }
    return tc::DriverError(error, "drop failed");
  }

  Status Insert(const std::string& key, const Record& record) override {
    bson_t doc = BSON_INITIALIZER;
    AppendKey(&doc, "_id", key);
    for (int field_idx = 0; field_idx < kFieldCount; ++field_idx) {
      AppendKey(&doc, FieldName(field_idx).c_str(), record[field_idx]);
    }
    bson_error_t error;
    const bool ok = mongoc_collection_insert_one(collection_.get(), &doc, nullptr, nullptr, &error);
    bson_destroy(&doc);
    return ok ? Status::OK() : tc::DriverError(error, "insert_one failed");
  }

  StatusWith<int> Read(const std::string& key) override {
    bson_t filter = BSON_INITIALIZER;
    AppendKey(&filter, "_id", key);
    bson_t opts = BSON_INITIALIZER;
    BSON_APPEND_INT32(&opts, "limit", 1);
    BSON_APPEND_BOOL(&opts, "singleBatch", true);
    mongoc_cursor_t* cursor =
        mongoc_collection_find_with_opts(collection_.get(), &filter, &opts, nullptr);
    bson_destroy(&filter);
    bson_destroy(&opts);
    const bson_t* doc;
    const int fields = mongoc_cursor_next(cursor, &doc) ? RecordFields(doc) : 0;
    bson_error_t error;
    const bool failed = mongoc_cursor_error(cursor, &error);
    mongoc_cursor_destroy(cursor);
    if (failed) return tc::DriverError(error, "find by _id failed");
    return fields;
  }

  StatusWith<bool> Update(const std::string& key, int field_idx,
                          const std::string& value) override {
    bson_t filter = BSON_INITIALIZER;
    AppendKey(&filter, "_id", key);
    bson_t update = BSON_INITIALIZER;
    bson_t set;
    bson_append_document_begin(&update, "$set", 4, &set);
    AppendKey(&set, FieldName(field_idx).c_str(), value);
    bson_append_document_end(&update, &set);
    bson_t reply;
    bson_error_t error;
    const bool ok =
        mongoc_collection_update_one(collection_.get(), &filter, &update, nullptr, &reply, &error);
    bson_iter_t matched;
    const bool found = ok && bson_iter_init_find(&matched, &reply, "matchedCount") &&
                       bson_iter_as_int64(&matched) == 1;
    bson_destroy(&reply);
    bson_destroy(&filter);
    bson_destroy(&update);
    if (!ok) return tc::DriverError(error, "updateOne failed");
    return found;
  }

  StatusWith<bool> Scan(const std::string& start, int count) override {
    bson_t filter = BSON_INITIALIZER;
    bson_t range;
    bson_append_document_begin(&filter, "_id", 3, &range);
    AppendKey(&range, "$gte", start);
    bson_append_document_end(&filter, &range);
    bson_t opts = BSON_INITIALIZER;
    bson_t sort;
    bson_append_document_begin(&opts, "sort", 4, &sort);
    BSON_APPEND_INT32(&sort, "_id", 1);
    bson_append_document_end(&opts, &sort);
    BSON_APPEND_INT64(&opts, "limit", count);
    mongoc_cursor_t* cursor =
        mongoc_collection_find_with_opts(collection_.get(), &filter, &opts, nullptr);
    bson_destroy(&filter);
    bson_destroy(&opts);
    ScanCheck check(start);
    const bson_t* doc;
    while (mongoc_cursor_next(cursor, &doc)) {
      bson_iter_t id;
      std::uint32_t length = 0;
      const char* key = bson_iter_init_find(&id, doc, "_id") && BSON_ITER_HOLDS_UTF8(&id)
                            ? bson_iter_utf8(&id, &length)
                            : "";
      check.Add(std::string_view(key, length), RecordFields(doc));
    }
    bson_error_t error;
    const bool failed = mongoc_cursor_error(cursor, &error);
    mongoc_cursor_destroy(cursor);
    if (failed) return tc::DriverError(error, "range find failed");
    return check.Passed(count);
  }

 private:
  std::unique_ptr<tc::MongoClient> client_;
  tc::CollectionPtr collection_;
};

}  // namespace

StatusWith<std::unique_ptr<StoreSession>> ConnectQuarryStore(const std::string& uri,
                                                             const std::string& db) {
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<tc::MongoClient> client,
                          tc::MongoClient::Connect({.uri = uri, .app_name = "ycsb_bench"}));
  return std::unique_ptr<StoreSession>(std::make_unique<QuarryStore>(std::move(client), db));
}

}  // namespace quarry::bench
