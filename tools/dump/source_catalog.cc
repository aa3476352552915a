#include "tools/dump/source_catalog.h"

#include <cstring>
#include <memory>

namespace quarry::tools::dumping {
namespace {

// The databases left out of a whole-server listing, as mongodump leaves them: the replication
// state and the cluster's own bookkeeping.
constexpr const char* kSkippedDatabases[] = {"local", "config"};

using client::CursorPtr;

client::BsonPtr CopyOf(const bson_t* doc) { return client::BsonPtr(bson_copy(doc)); }

std::string HexOfUuid(const bson_iter_t* iter) {
  bson_subtype_t subtype;
  std::uint32_t length = 0;
  const std::uint8_t* bytes = nullptr;
  bson_iter_binary(iter, &subtype, &length, &bytes);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint32_t i = 0; i < length; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0xF]);
  }
  return hex;
}

StatusWith<std::vector<std::string>> DatabaseNames(client::MongoClient& client,
                                                   const CatalogFilter& options) {
  if (!options.database.empty()) return std::vector<std::string>{options.database};
  bson_error_t error;
  char** names = mongoc_client_get_database_names_with_opts(client.get(), nullptr, &error);
  if (names == nullptr) return client::DriverError(error, "listing databases");
  std::vector<std::string> result;
  for (char** name = names; *name != nullptr; ++name) {
    bool skipped = false;
    for (const char* skip : kSkippedDatabases) skipped = skipped || std::strcmp(*name, skip) == 0;
    if (!skipped) result.emplace_back(*name);
  }
  bson_strfreev(names);
  return result;
}

StatusWith<std::vector<SourceCollection>> CollectionsOf(client::MongoClient& client,
                                                        const std::string& db,
                                                        const CatalogFilter& options) {
  mongoc_database_t* database = mongoc_client_get_database(client.get(), db.c_str());
  bson_t opts = BSON_INITIALIZER;
  if (!options.collection.empty()) {
    bson_t filter;
    BSON_APPEND_DOCUMENT_BEGIN(&opts, "filter", &filter);
    BSON_APPEND_UTF8(&filter, "name", options.collection.c_str());
    bson_append_document_end(&opts, &filter);
  }
  CursorPtr cursor(mongoc_database_find_collections_with_opts(database, &opts));
  bson_destroy(&opts);
  std::vector<SourceCollection> targets;
  const bson_t* entry = nullptr;
  while (mongoc_cursor_next(cursor.get(), &entry)) {
    SourceCollection target;
    target.db = db;
    bson_iter_t iter;
    if (!bson_iter_init_find(&iter, entry, "name") || !BSON_ITER_HOLDS_UTF8(&iter)) continue;
    target.metadata.name = bson_iter_utf8(&iter, nullptr);
    // System collections hold the server's own state (profiles, views' definitions), except
    // admin's users and roles, which mongodump dumps with the admin database.
    if (target.metadata.name.rfind("system.", 0) == 0 &&
        !IsAuthorizationCollection(db, target.metadata.name)) {
      continue;
    }
    bool excluded = false;
    for (const std::string& name : options.exclude_collections)
      excluded = excluded || name == target.metadata.name;
    if (excluded) continue;
    if (bson_iter_init_find(&iter, entry, "type") && BSON_ITER_HOLDS_UTF8(&iter)) {
      target.metadata.type = bson_iter_utf8(&iter, nullptr);
    }
    if (bson_iter_init_find(&iter, entry, "options") && BSON_ITER_HOLDS_DOCUMENT(&iter)) {
      std::uint32_t length = 0;
      const std::uint8_t* data = nullptr;
      bson_iter_document(&iter, &length, &data);
      target.metadata.options = client::BsonPtr(bson_new_from_data(data, length));
    }
    bson_iter_t uuid;
    if (bson_iter_init(&iter, entry) && bson_iter_find_descendant(&iter, "info.uuid", &uuid) &&
        BSON_ITER_HOLDS_BINARY(&uuid)) {
      target.metadata.uuid = HexOfUuid(&uuid);
    }
    targets.push_back(std::move(target));
  }
  bson_error_t error;
  const bool failed = mongoc_cursor_error(cursor.get(), &error);
  mongoc_database_destroy(database);
  if (failed) return client::DriverError(error, "listing the collections of " + db);

  for (SourceCollection& target : targets) {
    if (target.metadata.type != "collection") continue;
    client::CollectionPtr collection = client.Collection(db, target.metadata.name);
    CursorPtr indexes(mongoc_collection_find_indexes_with_opts(collection.get(), nullptr));
    const bson_t* spec = nullptr;
    while (mongoc_cursor_next(indexes.get(), &spec))
      target.metadata.indexes.push_back(CopyOf(spec));
    if (mongoc_cursor_error(indexes.get(), &error)) {
      return client::DriverError(error,
                                 "listing the indexes of " + db + "." + target.metadata.name);
    }
    // The archive prelude's size is informational (restore progress): a failure leaves it 0.
    bson_t* command = BCON_NEW("collStats", BCON_UTF8(target.metadata.name.c_str()));
    auto stats = client.RunCommand(db, *command);
    bson_destroy(command);
    bson_iter_t size;
    if (stats.ok() && bson_iter_init_find(&size, stats.value().get(), "size") &&
        BSON_ITER_HOLDS_NUMBER(&size)) {
      target.size = bson_iter_as_int64(&size);
    }
  }
  return targets;
}

}  // namespace

std::string ServerVersion(client::MongoClient& client) {
  bson_t* command = BCON_NEW("buildInfo", BCON_INT32(1));
  auto reply = client.RunCommand("admin", *command);
  bson_destroy(command);
  bson_iter_t iter;
  if (reply.ok() && bson_iter_init_find(&iter, reply.value().get(), "version") &&
      BSON_ITER_HOLDS_UTF8(&iter)) {
    return bson_iter_utf8(&iter, nullptr);
  }
  return "unknown";
}

StatusWith<std::vector<SourceCollection>> ListSourceCollections(client::MongoClient& client,
                                                                const CatalogFilter& filter) {
  auto databases = DatabaseNames(client, filter);
  if (!databases.ok()) return databases.status();
  std::vector<SourceCollection> collections;
  for (const std::string& db : databases.value()) {
    auto listed = CollectionsOf(client, db, filter);
    if (!listed.ok()) return listed.status();
    for (SourceCollection& collection : listed.value())
      collections.push_back(std::move(collection));
  }
  return collections;
}

}  // namespace quarry::tools::dumping
