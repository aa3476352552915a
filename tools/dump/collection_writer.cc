#include "tools/dump/collection_writer.h"

#include <cstring>

namespace quarry::tools::dumping {
namespace {

constexpr int kNamespaceNotFound = 26;
constexpr int kNamespaceExists = 48;
constexpr std::size_t kBatchBytes = 8 << 20;

}  // namespace

void LineLog::Line(const std::string& text) {
  std::lock_guard lock(mutex_);
  std::fprintf(stream_, "%s\n", text.c_str());
  std::fflush(stream_);
}

CollectionWriter::CollectionWriter(client::MongoClient* client, WriterOptions options,
                                   std::string db, CollectionMetadata metadata, LineLog* log,
                                   WriteCounters* counters)
    : client_(client),
      options_(std::move(options)),
      db_(std::move(db)),
      metadata_(std::move(metadata)),
      ns_(db_ + "." + metadata_.name),
      log_(log),
      counters_(counters),
      collection_(client->Collection(db_, metadata_.name)),
      merge_(IsAuthorizationCollection(db_, metadata_.name)) {}

Status CollectionWriter::Prepare() {
  // Users and roles are merged into the target's; dropping them first would also drop the
  // account this restore may be signed in with.
  if (merge_) return Status::OK();
  bson_error_t error;
  if (options_.drop && !mongoc_collection_drop_with_opts(collection_.get(), nullptr, &error) &&
      error.code != kNamespaceNotFound) {
    return client::DriverError(error, "dropping " + ns_);
  }
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&command, "create", metadata_.name.c_str());
  bson_iter_t iter;
  if (bson_iter_init(&iter, metadata_.options.get())) {
    while (bson_iter_next(&iter)) {
      bson_append_iter(&command, bson_iter_key(&iter), static_cast<int>(bson_iter_key_len(&iter)),
                       &iter);
    }
  }
  auto created = client_->RunCommand(db_, command);
  bson_destroy(&command);
  // An existing collection receives the documents as it is, as mongorestore does.
  if (!created.ok() && static_cast<int>(created.status().code()) != kNamespaceExists) {
    return Status(created.status().code(),
                  "creating " + ns_ + ": " + std::string(created.status().reason()));
  }
  return Status::OK();
}

Status CollectionWriter::Add(const bson_t* document) {
  batch_.emplace_back(bson_copy(document));
  batch_bytes_ += document->len;
  if (batch_.size() >= options_.batch_documents || batch_bytes_ >= kBatchBytes) return Flush();
  return Status::OK();
}

Status CollectionWriter::BuildIndexes() {
  if (metadata_.type != "collection" || merge_) return Status::OK();
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&command, "createIndexes", metadata_.name.c_str());
  bson_t indexes;
  BSON_APPEND_ARRAY_BEGIN(&command, "indexes", &indexes);
  std::uint32_t count = 0;
  for (const client::BsonPtr& spec : metadata_.indexes) {
    bson_iter_t name;
    if (bson_iter_init_find(&name, spec.get(), "name") && BSON_ITER_HOLDS_UTF8(&name) &&
        std::strcmp(bson_iter_utf8(&name, nullptr), "_id_") == 0) {
      continue;
    }
    char key_buffer[16];
    const char* key = nullptr;
    bson_uint32_to_string(count++, &key, key_buffer, sizeof key_buffer);
    client::BsonPtr create = IndexSpecForCreate(*spec);
    BSON_APPEND_DOCUMENT(&indexes, key, create.get());
  }
  bson_append_array_end(&command, &indexes);
  Status status = Status::OK();
  if (count > 0) {
    log_->Line("building " + std::to_string(count) + " index" + (count == 1 ? "" : "es") + " of " +
               ns_);
    auto built = client_->RunCommand(db_, command);
    if (!built.ok()) {
      status = Status(built.status().code(), "building the indexes of " + ns_ + ": " +
                                                 std::string(built.status().reason()));
    }
  }
  bson_destroy(&command);
  return status;
}

Status CollectionWriter::Finish() {
  QUARRY_RETURN_IF_ERROR(Flush());
  if (merge_ && options_.drop) QUARRY_RETURN_IF_ERROR(RemoveOthers());
  Status built = options_.build_indexes ? BuildIndexes() : Status::OK();
  log_->Line("finished " + ns_ + " (" + std::to_string(restored_) + " document" +
             (restored_ == 1 ? "" : "s") + ", " + std::to_string(failed_) + " failed)");
  return built;
}

Status CollectionWriter::Flush() {
  if (batch_.empty()) return Status::OK();
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&opts, "ordered", options_.stop_on_error);
  mongoc_bulk_operation_t* bulk =
      mongoc_collection_create_bulk_operation_with_opts(collection_.get(), &opts);
  bson_destroy(&opts);
  bson_t insert_opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&insert_opts, "validate",
                   false);  // documents as dumped, checked by the server
  bson_error_t error;
  for (const client::BsonPtr& doc : batch_) {
    if (merge_) {
      AddWrite(bulk, doc.get(), &error);
    } else {
      mongoc_bulk_operation_insert_with_opts(bulk, doc.get(), &insert_opts, &error);
    }
  }
  bson_destroy(&insert_opts);
  bson_t reply;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  mongoc_bulk_operation_destroy(bulk);
  std::uint64_t write_errors = 0;
  bson_iter_t iter;
  bson_iter_t errors;
  if (bson_iter_init_find(&iter, &reply, "writeErrors") && bson_iter_recurse(&iter, &errors)) {
    while (bson_iter_next(&errors)) {
      ++write_errors;
      bson_iter_t message;
      if (bson_iter_recurse(&errors, &message) && bson_iter_find(&message, "errmsg") &&
          BSON_ITER_HOLDS_UTF8(&message)) {
        log_->Line(ns_ + ": " + bson_iter_utf8(&message, nullptr));
      }
    }
  }
  std::uint64_t inserted = 0;
  for (const char* field : {"nInserted", "nUpserted", "nMatched"}) {
    if (bson_iter_init_find(&iter, &reply, field) && BSON_ITER_HOLDS_INT(&iter)) {
      inserted += static_cast<std::uint64_t>(bson_iter_as_int64(&iter));
    }
  }
  bson_destroy(&reply);
  const std::size_t sent = batch_.size();
  batch_.clear();
  batch_bytes_ = 0;
  if (!ok && write_errors == 0) return client::DriverError(error, "inserting into " + ns_);
  restored_ += inserted;
  // Ordered inserts stop at the first failure: the documents after it were not tried.
  failed_ += options_.stop_on_error ? write_errors : sent - inserted;
  counters_->restored += inserted;
  counters_->failed += options_.stop_on_error ? write_errors : sent - inserted;
  if (write_errors > 0 && options_.stop_on_error) {
    return Status(ErrorCode::kOperationFailed,
                  "stopped at the first failed insert into " + ns_ + " (--stopOnError)");
  }
  return Status::OK();
}

void CollectionWriter::AddWrite(mongoc_bulk_operation_t* bulk, const bson_t* document,
                                bson_error_t* error) {
  bson_t selector = BSON_INITIALIZER;
  bson_iter_t id;
  if (bson_iter_init_find(&id, document, "_id")) bson_append_iter(&selector, "_id", 3, &id);
  merged_ids_.emplace_back(bson_copy(&selector));
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&opts, "upsert", true);
  mongoc_bulk_operation_replace_one_with_opts(bulk, &selector, document, &opts, error);
  bson_destroy(&opts);
  bson_destroy(&selector);
}

Status CollectionWriter::RemoveOthers() {
  bson_t filter = BSON_INITIALIZER;
  bson_t id;
  bson_t nin;
  BSON_APPEND_DOCUMENT_BEGIN(&filter, "_id", &id);
  bson_append_array_begin(&id, "$nin", 4, &nin);
  std::uint32_t count = 0;
  for (const client::BsonPtr& written : merged_ids_) {
    bson_iter_t value;
    if (!bson_iter_init_find(&value, written.get(), "_id")) continue;
    char key_buffer[16];
    const char* key = nullptr;
    bson_uint32_to_string(count++, &key, key_buffer, sizeof key_buffer);
    bson_append_iter(&nin, key, -1, &value);
  }
  bson_append_array_end(&id, &nin);
  bson_append_document_end(&filter, &id);
  bson_t reply;
  bson_error_t error;
  const bool ok =
      mongoc_collection_delete_many(collection_.get(), &filter, nullptr, &reply, &error);
  bson_destroy(&filter);
  bson_iter_t removed;
  if (ok && bson_iter_init_find(&removed, &reply, "deletedCount") &&
      BSON_ITER_HOLDS_INT(&removed) && bson_iter_as_int64(&removed) > 0) {
    log_->Line(ns_ + ": removed " + std::to_string(bson_iter_as_int64(&removed)) +
               " not in the dump (--drop)");
  }
  bson_destroy(&reply);
  if (!ok) return client::DriverError(error, "removing from " + ns_ + " what the dump lacks");
  return Status::OK();
}

}  // namespace quarry::tools::dumping
