// RunExport over a libmongoc cursor and an OutputWriter.
#include "tools/export/export_run.h"

#include <algorithm>

#include "tools/client/mongo_client.h"
#include "tools/export/csv_writer.h"
#include "tools/export/output_writer.h"

namespace quarry::tools::exporting {
namespace {

using client::ClientOptions;
using client::CollectionPtr;
using client::DriverError;
using client::MongoClient;

// Enough documents per getMore that round trips stay few; the server caps a batch at 16 MB
// whatever this says.
constexpr std::int64_t kBatchSize = 1000;

using client::CursorPtr;

// As mongoexport: counting a filtered query would run it twice, so a filter without a limit
// gives an unknown total (0); without a filter the collection's metadata count is cheap.
std::int64_t EstimateTotal(const ExportPlan& plan, mongoc_collection_t* collection) {
  bool filtered = !bson_empty(plan.filter.get());
  if (filtered) return plan.limit;
  bson_error_t error;
  std::int64_t count =
      mongoc_collection_estimated_document_count(collection, nullptr, nullptr, nullptr, &error);
  if (count < 0) return plan.limit;
  count = std::max<std::int64_t>(count - plan.skip, 0);
  return plan.limit > 0 ? std::min(count, plan.limit) : count;
}

CursorPtr OpenCursor(const ExportPlan& plan, mongoc_collection_t* collection) {
  bson_t opts = BSON_INITIALIZER;
  if (plan.projection.get() != nullptr)
    BSON_APPEND_DOCUMENT(&opts, "projection", plan.projection.get());
  if (plan.sort.get() != nullptr) BSON_APPEND_DOCUMENT(&opts, "sort", plan.sort.get());
  if (plan.skip > 0) BSON_APPEND_INT64(&opts, "skip", plan.skip);
  if (plan.limit > 0) BSON_APPEND_INT64(&opts, "limit", plan.limit);
  BSON_APPEND_INT64(&opts, "batchSize", kBatchSize);
  CursorPtr cursor(mongoc_collection_find_with_opts(collection, plan.filter.get(), &opts, nullptr));
  bson_destroy(&opts);
  return cursor;
}

}  // namespace

std::unique_ptr<DocumentFormatter> MakeFormatter(const ExportPlan& plan) {
  if (plan.type == OutputType::kCsv) {
    return std::make_unique<CsvFormatter>(plan.fields, plan.header_line);
  }
  return std::make_unique<JsonFormatter>(plan.json_format, plan.json_array, plan.pretty);
}

StatusWith<std::int64_t> RunExport(const ExportPlan& plan, client::ProgressSink& progress) {
  ClientOptions client_options;
  client_options.uri = plan.uri;
  client_options.app_name = "quarry-export";
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<MongoClient> client,
                          MongoClient::Connect(client_options));
  std::string database = plan.database;
  if (database.empty()) {
    const char* uri_database = mongoc_uri_get_database(mongoc_client_get_uri(client->get()));
    database = uri_database != nullptr && *uri_database != '\0' ? uri_database : "test";
  }
  CollectionPtr collection = client->Collection(database, plan.collection);
  const std::string ns = database + "." + plan.collection;
  std::int64_t total = plan.estimate_total ? EstimateTotal(plan, collection.get()) : 0;

  CursorPtr cursor = OpenCursor(plan, collection.get());
  const bson_t* document = nullptr;
  bool more = mongoc_cursor_next(cursor.get(), &document);
  bson_error_t error;
  if (!more && mongoc_cursor_error(cursor.get(), &error)) {
    return DriverError(error, "cannot export " + ns);
  }

  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<OutputWriter> writer, OutputWriter::Open(plan.out));
  std::unique_ptr<DocumentFormatter> formatter = MakeFormatter(plan);
  std::string text;
  formatter->Begin(&text);
  QUARRY_RETURN_IF_ERROR(writer->Write(text));
  progress.Begin(ns, static_cast<double>(total));
  std::int64_t exported = 0;
  for (; more; more = mongoc_cursor_next(cursor.get(), &document)) {
    text.clear();
    formatter->Add(*document, &text);
    Status written = writer->Write(text);
    if (!written.ok()) {
      progress.End();
      return written;
    }
    progress.Advance(static_cast<double>(++exported));
  }
  progress.End();
  if (mongoc_cursor_error(cursor.get(), &error)) return DriverError(error, "cannot export " + ns);
  text.clear();
  formatter->Finish(&text);
  QUARRY_RETURN_IF_ERROR(writer->Write(text));
  QUARRY_RETURN_IF_ERROR(writer->Close());
  return exported;
}

std::string ExportedLine(std::int64_t count) {
  return "exported " + std::to_string(count) + (count == 1 ? " record" : " records");
}

}  // namespace quarry::tools::exporting
