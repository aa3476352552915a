// A libmongoc 1.23 client driving a running quarryd: one round of CRUD per wire compressor.
// Usage: quarry_libmongoc_client_test [BASE_URI]  (default: env QUARRY_URI)
// BASE_URI is "mongodb://host:port" with no options; each round appends its own, and those of
// env QUARRY_URI_OPTIONS ("tls=true&tlsCAFile=..."), if set. Prints one line
// per failed check and a final `N passed, N failed`; exits non-zero if any check failed.
// tests/integration/clients/test_libmongoc.py starts the server and runs this.
#include <mongoc/mongoc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "checks.h"

namespace {

using quarry_libmongoc::Check;
using quarry_libmongoc::ErrorText;

std::string Json(const bson_t* doc) {
  char* text = bson_as_relaxed_extended_json(doc, nullptr);
  std::string out = text ? text : "(null)";
  bson_free(text);
  return out;
}

// network.compression.<name>.decompressor.bytesIn from serverStatus: bytes the server
// decompressed with that compressor. Returns -1 when the field is missing.
std::int64_t DecompressedBytesIn(mongoc_client_t* client, const std::string& name) {
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_INT32(&command, "serverStatus", 1);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_client_command_simple(client, "admin", &command, nullptr, &reply, &error);
  bson_destroy(&command);
  std::int64_t value = -1;
  bson_iter_t iter;
  bson_iter_t field;
  const std::string path = "network.compression." + name + ".decompressor.bytesIn";
  if (ok && bson_iter_init(&iter, &reply) &&
      bson_iter_find_descendant(&iter, path.c_str(), &field) && BSON_ITER_HOLDS_NUMBER(&field)) {
    value = bson_iter_as_int64(&field);
  }
  bson_destroy(&reply);
  return value;
}

void RunRound(const std::string& base_uri, const std::string& compressor) {
  const std::string round = compressor.empty() ? "no compression" : compressor;
  std::string uri_text = base_uri;
  while (!uri_text.empty() && uri_text.back() == '/') uri_text.pop_back();
  uri_text += "/?";
  uri_text += "appname=quarry-libmongoc-test&serverSelectionTimeoutMS=5000";
  if (!compressor.empty()) uri_text += "&compressors=" + compressor;
  if (const char* extra = std::getenv("QUARRY_URI_OPTIONS"); extra != nullptr && *extra != '\0') {
    uri_text += "&";
    uri_text += extra;
  }

  bson_error_t error;
  mongoc_uri_t* uri = mongoc_uri_new_with_error(uri_text.c_str(), &error);
  Check(uri != nullptr, round, "parse URI " + uri_text, uri ? "" : ErrorText(error));
  if (uri == nullptr) return;
  mongoc_client_t* client = mongoc_client_new_from_uri(uri);
  mongoc_client_set_error_api(client, MONGOC_ERROR_API_VERSION_2);

  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  bson_t reply;
  bool ok = mongoc_client_command_simple(client, "admin", &ping, nullptr, &reply, &error);
  Check(ok, round, "ping", ok ? "" : ErrorText(error));
  bson_destroy(&reply);
  bson_destroy(&ping);
  if (!ok) {
    mongoc_client_destroy(client);
    mongoc_uri_destroy(uri);
    return;
  }
  const std::int64_t decompressed_before =
      compressor.empty() ? 0 : DecompressedBytesIn(client, compressor);

  const std::string coll_name =
      "libmongoc_" + (compressor.empty() ? std::string("none") : compressor);
  mongoc_collection_t* coll =
      mongoc_client_get_collection(client, "quarry_libmongoc", coll_name.c_str());
  mongoc_collection_drop(coll, nullptr);  // absent on the first run: error ignored

  // insert_many of 500 documents with a compressible payload.
  constexpr int kDocs = 500;
  const std::string padding(200, 'q');
  bson_t* docs[kDocs];
  for (int i = 0; i < kDocs; ++i) {
    docs[i] = bson_new();
    BSON_APPEND_INT32(docs[i], "_id", i);
    BSON_APPEND_INT32(docs[i], "n", i);
    BSON_APPEND_UTF8(docs[i], "parity", i % 2 == 0 ? "even" : "odd");
    BSON_APPEND_UTF8(docs[i], "pad", padding.c_str());
  }
  ok = mongoc_collection_insert_many(coll, const_cast<const bson_t**>(docs), kDocs, nullptr, &reply,
                                     &error);
  Check(ok, round, "insert_many 500", ok ? "" : ErrorText(error) + " reply " + Json(&reply));
  bson_iter_t iter;
  Check(bson_iter_init_find(&iter, &reply, "insertedCount") && bson_iter_as_int64(&iter) == kDocs,
        round, "insert_many reports insertedCount 500", Json(&reply));
  bson_destroy(&reply);
  for (int i = 0; i < kDocs; ++i) bson_destroy(docs[i]);

  // insert_one of a duplicate _id fails with 11000.
  bson_t* dup = BCON_NEW("_id", BCON_INT32(7), "n", BCON_INT32(-1));
  ok = mongoc_collection_insert_one(coll, dup, nullptr, &reply, &error);
  Check(!ok && error.code == 11000, round, "duplicate _id fails with code 11000",
        ok ? "insert succeeded" : ErrorText(error));
  bson_destroy(&reply);
  bson_destroy(dup);

  // find with a filter, sort and limit: {n: {$gte: 100}} sorted descending, 10 documents.
  bson_t* filter = BCON_NEW("n", "{", "$gte", BCON_INT32(100), "}");
  bson_t* opts = BCON_NEW("sort", "{", "n", BCON_INT32(-1), "}", "limit", BCON_INT64(10),
                          "projection", "{", "pad", BCON_INT32(0), "}");
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll, filter, opts, nullptr);
  const bson_t* doc;
  int seen = 0;
  std::int32_t expected = kDocs - 1;
  bool in_order = true;
  bool projected = true;
  while (mongoc_cursor_next(cursor, &doc)) {
    if (!bson_iter_init_find(&iter, doc, "n") || bson_iter_int32(&iter) != expected)
      in_order = false;
    if (bson_iter_init_find(&iter, doc, "pad")) projected = false;
    --expected;
    ++seen;
  }
  ok = !mongoc_cursor_error(cursor, &error);
  Check(ok, round, "find cursor has no error", ok ? "" : ErrorText(error));
  Check(seen == 10, round, "find with limit 10 returns 10", std::to_string(seen));
  Check(in_order, round, "find sorted by n descending");
  Check(projected, round, "find projection drops pad");
  mongoc_cursor_destroy(cursor);
  bson_destroy(opts);
  bson_destroy(filter);

  // A full scan through getMore batches.
  bson_t empty = BSON_INITIALIZER;
  bson_t* batch_opts = BCON_NEW("batchSize", BCON_INT32(50));
  cursor = mongoc_collection_find_with_opts(coll, &empty, batch_opts, nullptr);
  seen = 0;
  while (mongoc_cursor_next(cursor, &doc)) ++seen;
  ok = !mongoc_cursor_error(cursor, &error);
  Check(ok && seen == kDocs, round, "full scan in batches of 50 returns 500",
        std::to_string(seen) + (ok ? "" : " " + ErrorText(error)));
  mongoc_cursor_destroy(cursor);
  bson_destroy(batch_opts);

  // count_documents (aggregate) and estimated_document_count (count).
  bson_t* even = BCON_NEW("parity", BCON_UTF8("even"));
  std::int64_t count =
      mongoc_collection_count_documents(coll, even, nullptr, nullptr, nullptr, &error);
  Check(count == kDocs / 2, round, "count_documents {parity: even} is 250",
        count < 0 ? ErrorText(error) : std::to_string(count));
  bson_destroy(even);
  count = mongoc_collection_estimated_document_count(coll, nullptr, nullptr, nullptr, &error);
  Check(count == kDocs, round, "estimated_document_count is 500",
        count < 0 ? ErrorText(error) : std::to_string(count));

  // update_one with $set, then read it back; delete_many; count again.
  bson_t* selector = BCON_NEW("_id", BCON_INT32(3));
  bson_t* update = BCON_NEW("$set", "{", "tag", BCON_UTF8("updated"), "}");
  ok = mongoc_collection_update_one(coll, selector, update, nullptr, &reply, &error);
  Check(ok && bson_iter_init_find(&iter, &reply, "modifiedCount") && bson_iter_as_int64(&iter) == 1,
        round, "update_one $set modifies 1", ok ? Json(&reply) : ErrorText(error));
  bson_destroy(&reply);
  bson_destroy(update);
  cursor = mongoc_collection_find_with_opts(coll, selector, nullptr, nullptr);
  bool updated = mongoc_cursor_next(cursor, &doc) && bson_iter_init_find(&iter, doc, "tag") &&
                 std::string(bson_iter_utf8(&iter, nullptr)) == "updated";
  Check(updated, round, "updated document has tag: updated");
  mongoc_cursor_destroy(cursor);
  bson_destroy(selector);

  bson_t* odd = BCON_NEW("parity", BCON_UTF8("odd"));
  ok = mongoc_collection_delete_many(coll, odd, nullptr, &reply, &error);
  Check(ok && bson_iter_init_find(&iter, &reply, "deletedCount") &&
            bson_iter_as_int64(&iter) == kDocs / 2,
        round, "delete_many {parity: odd} deletes 250", ok ? Json(&reply) : ErrorText(error));
  bson_destroy(&reply);
  bson_destroy(odd);
  count = mongoc_collection_count_documents(coll, &empty, nullptr, nullptr, nullptr, &error);
  Check(count == kDocs / 2, round, "250 documents remain",
        count < 0 ? ErrorText(error) : std::to_string(count));

  if (!compressor.empty()) {
    const std::int64_t decompressed_after = DecompressedBytesIn(client, compressor);
    Check(decompressed_after > decompressed_before && decompressed_before >= 0, round,
          "server decompressed our requests (serverStatus network.compression." + compressor +
              ".decompressor.bytesIn grew)",
          std::to_string(decompressed_before) + " -> " + std::to_string(decompressed_after));
  }

  ok = mongoc_collection_drop(coll, &error);
  Check(ok, round, "drop collection", ok ? "" : ErrorText(error));
  mongoc_collection_destroy(coll);
  mongoc_client_destroy(client);
  mongoc_uri_destroy(uri);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env_uri = std::getenv("QUARRY_URI");
  const std::string base_uri = argc > 1 ? argv[1] : (env_uri ? env_uri : "");
  if (base_uri.empty()) {
    std::fprintf(stderr, "usage: %s mongodb://host:port  (or set QUARRY_URI)\n", argv[0]);
    return 2;
  }
  mongoc_init();
  for (const char* compressor : {"", "zstd", "snappy", "zlib"}) RunRound(base_uri, compressor);
  mongoc_cleanup();
  return quarry_libmongoc::PrintSummary();
}
