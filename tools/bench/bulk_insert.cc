// Driver calls for inserting DocumentSets.
#include "tools/bench/bulk_insert.h"

#include <algorithm>

namespace quarry::tools::bench {

using client::DriverError;
using client::ProgressSink;

namespace {

// {ordered, writeConcern} for a bulk write or insert_one.
void AppendWriteOptions(const InsertOptions& options, bool with_ordered, bson_t* opts) {
  if (with_ordered) BSON_APPEND_BOOL(opts, "ordered", options.ordered);
  bson_t concern;
  BSON_APPEND_DOCUMENT_BEGIN(opts, "writeConcern", &concern);
  BSON_APPEND_INT32(&concern, "w", options.mode == WriteMode::kUnacknowledged ? 0 : 1);
  if (options.mode == WriteMode::kJournaled) BSON_APPEND_BOOL(&concern, "j", true);
  bson_append_document_end(opts, &concern);
}

}  // namespace

std::string_view WriteModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kUnacknowledged:
      return "w:0";
    case WriteMode::kAcknowledged:
      return "w:1";
    case WriteMode::kJournaled:
      return "j:true";
  }
  return "?";
}

Status BulkInsert(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t begin,
                  std::size_t end, const InsertOptions& options) {
  bson_t opts = BSON_INITIALIZER;
  AppendWriteOptions(options, /*with_ordered=*/true, &opts);
  mongoc_bulk_operation_t* bulk =
      mongoc_collection_create_bulk_operation_with_opts(collection, &opts);
  bson_destroy(&opts);
  bson_t insert_opts = BSON_INITIALIZER;
  if (!options.driver_validation) BSON_APPEND_BOOL(&insert_opts, "validate", false);
  bson_error_t error;
  Status status;
  for (std::size_t i = begin; i < end && status.ok(); ++i) {
    bson_t doc;
    docs.View(i, &doc);
    if (!mongoc_bulk_operation_insert_with_opts(bulk, &doc, &insert_opts, &error)) {
      status = DriverError(error, "cannot add document " + std::to_string(i) + " to the bulk");
    }
  }
  bson_destroy(&insert_opts);
  if (status.ok() && begin < end) {
    bson_t reply;
    if (mongoc_bulk_operation_execute(bulk, &reply, &error) == 0) {
      status = DriverError(error, "bulk insert failed");
    }
    bson_destroy(&reply);
  }
  mongoc_bulk_operation_destroy(bulk);
  return status;
}

Status InsertOneByOne(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t count,
                      const InsertOptions& options, ProgressSink& progress) {
  bson_t opts = BSON_INITIALIZER;
  AppendWriteOptions(options, /*with_ordered=*/false, &opts);
  if (!options.driver_validation) BSON_APPEND_BOOL(&opts, "validate", false);
  bson_error_t error;
  Status status;
  count = std::min(count, docs.size());
  for (std::size_t i = 0; i < count; ++i) {
    bson_t doc;
    docs.View(i, &doc);
    if (!mongoc_collection_insert_one(collection, &doc, &opts, nullptr, &error)) {
      status = DriverError(error, "insert of document " + std::to_string(i) + " failed");
      break;
    }
    if ((i & 255) == 0) progress.Advance(static_cast<double>(i));
  }
  bson_destroy(&opts);
  return status;
}

Status InsertInBatches(mongoc_collection_t* collection, const DocumentSet& docs,
                       std::size_t batch_size, const InsertOptions& options,
                       ProgressSink& progress) {
  batch_size = std::max<std::size_t>(batch_size, 1);
  for (std::size_t begin = 0; begin < docs.size(); begin += batch_size) {
    QUARRY_RETURN_IF_ERROR(
        BulkInsert(collection, docs, begin, std::min(docs.size(), begin + batch_size), options));
    progress.Advance(static_cast<double>(std::min(docs.size(), begin + batch_size)));
  }
  return Status::OK();
}

std::vector<std::pair<std::size_t, std::size_t>> MessageSlices(const DocumentSet& docs,
                                                               std::size_t count,
                                                               std::size_t max_documents,
                                                               std::size_t max_bytes) {
  std::vector<std::pair<std::size_t, std::size_t>> slices;
  count = std::min(count, docs.size());
  for (std::size_t begin = 0; begin < count;) {
    std::size_t end = begin;
    std::size_t bytes = 0;
    while (end < count && end - begin < max_documents &&
           (end == begin || bytes + docs.Bytes(end).size() <= max_bytes)) {
      bytes += docs.Bytes(end).size();
      ++end;
    }
    slices.emplace_back(begin, end);
    begin = end;
  }
  return slices;
}

Status InsertInMessages(mongoc_collection_t* collection, const DocumentSet& docs, std::size_t count,
                        const InsertOptions& options, ProgressSink& progress) {
  for (const auto& [begin, end] : MessageSlices(docs, count)) {
    QUARRY_RETURN_IF_ERROR(BulkInsert(collection, docs, begin, end, options));
    progress.Advance(static_cast<double>(end));
  }
  return Status::OK();
}

StatusWith<std::int64_t> CountDocuments(mongoc_collection_t* collection) {
  bson_t filter = BSON_INITIALIZER;
  bson_error_t error;
  std::int64_t n =
      mongoc_collection_count_documents(collection, &filter, nullptr, nullptr, nullptr, &error);
  bson_destroy(&filter);
  if (n < 0) return DriverError(error, "countDocuments failed");
  return n;
}

Status DropCollection(mongoc_collection_t* collection) {
  bson_error_t error;
  if (!mongoc_collection_drop_with_opts(collection, nullptr, &error) &&
      !(error.domain == MONGOC_ERROR_SERVER &&
        error.code == static_cast<std::uint32_t>(ErrorCode::kNamespaceNotFound))) {
    return DriverError(error, "drop failed");
  }
  return Status::OK();
}

}  // namespace quarry::tools::bench
