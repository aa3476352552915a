// Writes one batch of an import with one bulk write, in the import's mode, and tells which
// documents failed and why. Each insertion worker owns one (and its own connection).
#pragma once

#include <mongoc/mongoc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tools/client/mongo_client.h"

namespace quarry::tools::importing {

enum class ImportMode {
  kInsert,  // insert; a document whose _id exists fails
  kUpsert,  // replace the document matching the upsert fields, or insert it
  kMerge,   // set the document's fields on the one matching the upsert fields, or insert it
  kDelete,  // delete the document matching the upsert fields
};

struct ImportBatch {
  std::vector<client::BsonPtr> documents;
  std::vector<std::int64_t> lines;  // each document's line in the input
};

struct WriteSettings {
  ImportMode mode = ImportMode::kInsert;
  std::vector<std::string> upsert_fields = {"_id"};
  // Ordered writes keep the input's order; with stop_on_error the first failure ends the
  // batch, else the writes after it are sent again.
  bool ordered = false;
  bool stop_on_error = false;
  const bson_t* write_concern = nullptr;  // {w, j, wtimeout}, or null for the server's default
};

struct BatchOutcome {
  std::uint64_t succeeded = 0;
  std::vector<std::pair<std::size_t, std::string>> errors;  // document index, reason
  bool stopped = false;         // stop_on_error met an error: documents after it were not sent
  Status fatal = Status::OK();  // the connection or the server failed the whole batch
};

BatchOutcome WriteImportBatch(mongoc_collection_t* collection, const WriteSettings& settings,
                              const ImportBatch& batch);

}  // namespace quarry::tools::importing
