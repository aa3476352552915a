#include "tools/import/import_batch_writer.h"

#include <optional>

namespace quarry::tools::importing {
namespace {

// The filter that finds the document's counterpart: its values of the upsert fields. nullopt
// names the first field the document lacks.
bool BuildFilter(const bson_t& document, const std::vector<std::string>& fields, bson_t* filter,
                 std::string* missing) {
  for (const std::string& field : fields) {
    bson_iter_t iter;
    bson_iter_t value;
    if (!bson_iter_init(&iter, &document) ||
        !bson_iter_find_descendant(&iter, field.c_str(), &value)) {
      *missing = field;
      return false;
    }
    bson_append_iter(filter, field.c_str(), static_cast<int>(field.size()), &value);
  }
  return true;
}

// {$set: fields but _id, $setOnInsert: {_id}}: merges into a match, inserts the whole
// document otherwise.
void BuildMergeUpdate(const bson_t& document, bson_t* update) {
  bson_t set;
  bson_append_document_begin(update, "$set", 4, &set);
  bson_iter_t iter;
  bson_iter_t id;
  bool has_id = false;
  if (bson_iter_init(&iter, &document)) {
    while (bson_iter_next(&iter)) {
      if (std::string_view(bson_iter_key(&iter)) == "_id") {
        id = iter;
        has_id = true;
        continue;
      }
      bson_append_iter(&set, bson_iter_key(&iter), static_cast<int>(bson_iter_key_len(&iter)),
                       &iter);
    }
  }
  bson_append_document_end(update, &set);
  if (has_id) {
    bson_t on_insert;
    bson_append_document_begin(update, "$setOnInsert", 12, &on_insert);
    bson_append_iter(&on_insert, "_id", 3, &id);
    bson_append_document_end(update, &on_insert);
  }
}

// Adds the document's operation to `bulk`. False with `reason` when it cannot be formed.
bool AddOperation(mongoc_bulk_operation_t* bulk, const WriteSettings& settings,
                  const bson_t& document, std::string* reason) {
  bson_error_t error;
  bson_t insert_opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&insert_opts, "validate", false);  // the server checks what it stores
  bool added = false;
  bson_t filter = BSON_INITIALIZER;
  std::string missing;
  const bool has_filter = settings.mode != ImportMode::kInsert &&
                          BuildFilter(document, settings.upsert_fields, &filter, &missing);
  const bool lacks_only_id =
      !has_filter && settings.upsert_fields.size() == 1 && settings.upsert_fields[0] == "_id";
  if (settings.mode == ImportMode::kInsert ||
      (!has_filter && lacks_only_id && settings.mode != ImportMode::kDelete)) {
    // A document without an _id has no counterpart to replace or merge: it is new.
    added = mongoc_bulk_operation_insert_with_opts(bulk, &document, &insert_opts, &error);
  } else if (!has_filter) {
    *reason = "the document has no upsert field " + missing;
  } else {
    bson_t upsert_opts = BSON_INITIALIZER;
    BSON_APPEND_BOOL(&upsert_opts, "upsert", true);
    switch (settings.mode) {
      case ImportMode::kUpsert:
        added = mongoc_bulk_operation_replace_one_with_opts(bulk, &filter, &document, &upsert_opts,
                                                            &error);
        break;
      case ImportMode::kMerge: {
        bson_t update = BSON_INITIALIZER;
        BuildMergeUpdate(document, &update);
        added = mongoc_bulk_operation_update_one_with_opts(bulk, &filter, &update, &upsert_opts,
                                                           &error);
        bson_destroy(&update);
        break;
      }
      case ImportMode::kDelete:
        added = mongoc_bulk_operation_remove_one_with_opts(bulk, &filter, nullptr, &error);
        break;
      case ImportMode::kInsert:
        break;
    }
    bson_destroy(&upsert_opts);
  }
  if (!added && reason->empty()) *reason = error.message;
  bson_destroy(&filter);
  bson_destroy(&insert_opts);
  return added;
}

}  // namespace

BatchOutcome WriteImportBatch(mongoc_collection_t* collection, const WriteSettings& settings,
                              const ImportBatch& batch) {
  BatchOutcome outcome;
  const bool ordered = settings.ordered || settings.stop_on_error;
  std::size_t start = 0;
  while (start < batch.documents.size() && outcome.fatal.ok() && !outcome.stopped) {
    bson_t opts = BSON_INITIALIZER;
    BSON_APPEND_BOOL(&opts, "ordered", ordered);
    if (settings.write_concern != nullptr)
      BSON_APPEND_DOCUMENT(&opts, "writeConcern", settings.write_concern);
    mongoc_bulk_operation_t* bulk =
        mongoc_collection_create_bulk_operation_with_opts(collection, &opts);
    bson_destroy(&opts);
    // sent[k]: the document of the bulk's k-th operation.
    std::vector<std::size_t> sent;
    std::size_t next = start;
    for (; next < batch.documents.size(); ++next) {
      std::string reason;
      if (AddOperation(bulk, settings, *batch.documents[next], &reason)) {
        sent.push_back(next);
        continue;
      }
      if (ordered) break;  // send what precedes it, then report it in order
      outcome.errors.emplace_back(next, reason);
    }
    std::optional<std::pair<std::size_t, std::string>> unsendable;
    if (next < batch.documents.size()) {
      std::string reason;
      AddOperation(bulk, settings, *batch.documents[next], &reason);  // for its reason only
      unsendable.emplace(next, reason);
    }
    bson_t reply;
    bson_error_t error;
    const bool ok = sent.empty() || mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
    if (sent.empty()) bson_init(&reply);
    mongoc_bulk_operation_destroy(bulk);

    std::size_t failed_at = sent.size();  // the first failed operation of an ordered bulk
    std::size_t write_errors = 0;
    bson_iter_t iter;
    bson_iter_t errors;
    if (bson_iter_init_find(&iter, &reply, "writeErrors") && bson_iter_recurse(&iter, &errors)) {
      while (bson_iter_next(&errors)) {
        bson_iter_t entry;
        if (!bson_iter_recurse(&errors, &entry)) continue;
        std::size_t index = 0;
        std::string message = "write error";
        while (bson_iter_next(&entry)) {
          const std::string_view key = bson_iter_key(&entry);
          if (key == "index" && BSON_ITER_HOLDS_INT(&entry))
            index = static_cast<std::size_t>(bson_iter_as_int64(&entry));
          if (key == "errmsg" && BSON_ITER_HOLDS_UTF8(&entry))
            message = bson_iter_utf8(&entry, nullptr);
        }
        if (index >= sent.size()) continue;
        outcome.errors.emplace_back(sent[index], message);
        failed_at = std::min(failed_at, index);
        ++write_errors;
      }
    }
    if (bson_iter_init_find(&iter, &reply, "writeConcernErrors") &&
        bson_iter_recurse(&iter, &errors) && bson_iter_next(&errors)) {
      outcome.fatal = client::DriverError(error, "write concern");
    } else if (!ok && write_errors == 0) {
      outcome.fatal = client::DriverError(error, "bulk write");
    }
    bson_destroy(&reply);
    if (!outcome.fatal.ok()) break;

    if (!ordered || write_errors == 0) {
      outcome.succeeded += sent.size() - write_errors;
      if (!unsendable) break;
      outcome.errors.push_back(*unsendable);
      if (settings.stop_on_error) {
        outcome.stopped = true;
        break;
      }
      start = unsendable->first + 1;
      continue;
    }
    // Ordered: what precedes the failure was written, what follows it was not sent.
    outcome.succeeded += failed_at;
    if (settings.stop_on_error) {
      outcome.stopped = true;
      break;
    }
    start = sent[failed_at] + 1;
  }
  return outcome;
}

}  // namespace quarry::tools::importing
