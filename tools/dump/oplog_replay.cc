#include "tools/dump/oplog_replay.h"

#include <string_view>

#include "tools/dump/bson_fields.h"

namespace quarry::tools::dumping {
namespace {

// An update in modifier form ({$set: ...}) rather than a replacement.
bool IsModifier(const bson_t& update) {
  bson_iter_t iter;
  return bson_iter_init(&iter, &update) && bson_iter_next(&iter) && bson_iter_key(&iter)[0] == '$';
}

}  // namespace

Status OplogReplayer::Apply(const bson_t& entry) {
  bson_iter_t iter;
  const std::string op = Utf8Field(entry, "op");
  const std::string ns = Utf8Field(entry, "ns");
  if (op == "n") return Status::OK();  // a no-op marker
  const std::size_t dot = ns.find('.');
  if (op.empty() || dot == std::string::npos) {
    return Status(ErrorCode::kFailedToParse, "an oplog entry lacks op or a namespace");
  }
  if (op == "c") {
    return Status(ErrorCode::kNotImplemented, "the oplog has a command entry for " + ns +
                                                  ", which --oplogReplay does not apply yet");
  }
  if (!included_(ns)) return Status::OK();
  auto& collection = collections_[ns];
  if (collection == nullptr)
    collection = client_->Collection(ns.substr(0, dot), ns.substr(dot + 1));
  bson_t object;
  if (!SubDocument(entry, "o", &object))
    return Status(ErrorCode::kFailedToParse, "an oplog entry of " + ns + " has no o");
  bson_error_t error;
  bool done = false;
  bson_t filter = BSON_INITIALIZER;
  bson_t* upsert = BCON_NEW("upsert", BCON_BOOL(true));
  if (op == "i" || op == "u") {
    bson_t key;
    if (op == "u" ? !SubDocument(entry, "o2", &key) : !bson_iter_init_find(&iter, &object, "_id")) {
      bson_destroy(upsert);
      return Status(ErrorCode::kFailedToParse,
                    "an oplog entry of " + ns + " does not name its document");
    }
    if (op == "u") {
      bson_copy_to(&key, &filter);
    } else {
      bson_append_iter(&filter, "_id", 3, &iter);
    }
    if (op == "u" && IsModifier(object)) {
      bson_iter_t version;
      if (bson_iter_init_find(&version, &object, "$v") && bson_iter_as_int64(&version) == 2) {
        bson_destroy(upsert);
        bson_destroy(&filter);
        return Status(ErrorCode::kNotImplemented, "the oplog has a \"$v\": 2 update of " + ns +
                                                      ", which --oplogReplay does not apply yet");
      }
      done = mongoc_collection_update_one(collection.get(), &filter, &object, nullptr, nullptr,
                                          &error);
    } else {
      done = mongoc_collection_replace_one(collection.get(), &filter, &object, upsert, nullptr,
                                           &error);
    }
  } else if (op == "d") {
    done = mongoc_collection_delete_one(collection.get(), &object, nullptr, nullptr, &error);
  } else {
    bson_destroy(upsert);
    bson_destroy(&filter);
    return Status(ErrorCode::kFailedToParse,
                  "an oplog entry of " + ns + " has an unknown op " + op);
  }
  bson_destroy(upsert);
  bson_destroy(&filter);
  if (!done) return client::DriverError(error, "replaying the oplog on " + ns);
  ++applied_;
  return Status::OK();
}

}  // namespace quarry::tools::dumping
