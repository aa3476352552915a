// A libmongoc 1.23 client driving bulk writes against a running quarryd (issue #4): 100,000
// operations per bulk with errors at known positions, ordered and unordered, upserts, every write
// concern, getLastError, and read-your-writes after w:0. The pytest twin is
// tests/integration/bulk/test_bulk_writes.py; the Node one
// tests/integration/node/bulk_writes.test.mjs. Usage: quarry_libmongoc_bulk_test [BASE_URI]
// (default: env QUARRY_URI) BASE_URI is "mongodb://host:port" with no options. Prints one line per
// failed check and a final `N passed, N failed`; exits non-zero if any check failed.
// tests/integration/clients/test_libmongoc_bulk.py starts the server and runs this.
#include <mongoc/mongoc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int kBatch = 100000;
constexpr int kQuarter = kBatch / 4;
const std::vector<std::int64_t> kDuplicatePositions = {10, 5000, 77777, 99999};
constexpr const char* kDatabase = "quarry_libmongoc_bulk";

int g_passed = 0;
int g_failed = 0;
std::string g_test;  // the test now running, for failure lines
// Commands the client sent, by name (from the APM command-started callback).
std::map<std::string, int> g_commands_started;

void Check(bool ok, const std::string& what, const std::string& detail = "") {
  if (ok) {
    ++g_passed;
    return;
  }
  ++g_failed;
  std::fprintf(stderr, "FAILED [%s] %s%s%s\n", g_test.c_str(), what.c_str(),
               detail.empty() ? "" : ": ", detail.c_str());
}

std::string Json(const bson_t* doc) {
  char* text = bson_as_relaxed_extended_json(doc, nullptr);
  std::string out = text ? text : "(null)";
  bson_free(text);
  // Replies to 100,000-operation bulks can be long; a failure line needs only the start.
  if (out.size() > 2000) out = out.substr(0, 2000) + "...";
  return out;
}

std::string ErrorText(const bson_error_t& error) {
  return "domain " + std::to_string(error.domain) + " code " + std::to_string(error.code) + ": " +
         error.message;
}

std::string Join(const std::vector<std::int64_t>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

// The number at a dotted path in `doc`, or -1 when it is missing or not a number.
std::int64_t NumberAt(const bson_t* doc, const char* path) {
  bson_iter_t iter;
  bson_iter_t field;
  if (bson_iter_init(&iter, doc) && bson_iter_find_descendant(&iter, path, &field) &&
      BSON_ITER_HOLDS_NUMBER(&field)) {
    return bson_iter_as_int64(&field);
  }
  return -1;
}

// The string at a dotted path in `doc`, or "(missing)".
std::string StringAt(const bson_t* doc, const char* path) {
  bson_iter_t iter;
  bson_iter_t field;
  if (bson_iter_init(&iter, doc) && bson_iter_find_descendant(&iter, path, &field) &&
      BSON_ITER_HOLDS_UTF8(&field)) {
    return bson_iter_utf8(&field, nullptr);
  }
  return "(missing)";
}

bool Has(const bson_t* doc, const char* path) {
  bson_iter_t iter;
  bson_iter_t field;
  return bson_iter_init(&iter, doc) && bson_iter_find_descendant(&iter, path, &field);
}

// Calls `visit(const bson_t&)` with each document of the array `field` of `reply` (none if it is
// absent). A template, not std::function: bson_t's alignment attribute is lost in template
// arguments (-Wignored-attributes).
template <typename Visit>
void ForEachInArray(const bson_t* reply, const char* field, const Visit& visit) {
  bson_iter_t iter;
  bson_iter_t child;
  if (!bson_iter_init_find(&iter, reply, field) || !BSON_ITER_HOLDS_ARRAY(&iter) ||
      !bson_iter_recurse(&iter, &child)) {
    return;
  }
  while (bson_iter_next(&child)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&child)) continue;
    std::uint32_t length;
    const std::uint8_t* data;
    bson_iter_document(&child, &length, &data);
    bson_t element;
    if (bson_init_static(&element, data, length)) visit(element);
  }
}

// The `index` of every document in the array `field` (writeErrors, upserted) of `reply`.
std::vector<std::int64_t> Indexes(const bson_t* reply, const char* field) {
  std::vector<std::int64_t> out;
  ForEachInArray(reply, field, [&](const bson_t& doc) { out.push_back(NumberAt(&doc, "index")); });
  return out;
}

std::int64_t Count(mongoc_collection_t* coll, const bson_t* filter = nullptr) {
  bson_t empty = BSON_INITIALIZER;
  bson_error_t error;
  const std::int64_t n = mongoc_collection_count_documents(coll, filter ? filter : &empty, nullptr,
                                                           nullptr, nullptr, &error);
  if (n < 0) Check(false, "count_documents", ErrorText(error));
  return n;
}

mongoc_collection_t* FreshCollection(mongoc_client_t* client, const char* name) {
  mongoc_collection_t* coll = mongoc_client_get_collection(client, kDatabase, name);
  mongoc_collection_drop(coll, nullptr);  // absent on a fresh server: error ignored
  return coll;
}

mongoc_bulk_operation_t* NewBulk(mongoc_collection_t* coll, bool ordered,
                                 const bson_t* write_concern = nullptr) {
  bson_t opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&opts, "ordered", ordered);
  if (write_concern) BSON_APPEND_DOCUMENT(&opts, "writeConcern", write_concern);
  mongoc_bulk_operation_t* bulk = mongoc_collection_create_bulk_operation_with_opts(coll, &opts);
  bson_destroy(&opts);
  return bulk;
}

void InsertInt(mongoc_bulk_operation_t* bulk, std::int64_t id, const char* field,
               std::int64_t value) {
  bson_t doc = BSON_INITIALIZER;
  BSON_APPEND_INT64(&doc, "_id", id);
  BSON_APPEND_INT64(&doc, field, value);
  bson_error_t error;
  if (!mongoc_bulk_operation_insert_with_opts(bulk, &doc, nullptr, &error)) {
    Check(false, "queue insert", ErrorText(error));
  }
  bson_destroy(&doc);
}

// Inserts {_id: i, n: 0} for i in [0, kBatch) with one acknowledged bulk.
void Seed(mongoc_collection_t* coll, std::int64_t odd_one_out = -1) {
  mongoc_bulk_operation_t* bulk = NewBulk(coll, false);
  for (std::int64_t i = 0; i < kBatch; ++i) {
    if (i == odd_one_out) {
      bson_t* doc = BCON_NEW("_id", BCON_INT64(i), "n", BCON_UTF8("text"));
      mongoc_bulk_operation_insert_with_opts(bulk, doc, nullptr, nullptr);
      bson_destroy(doc);
    } else {
      InsertInt(bulk, i, "n", 0);
    }
  }
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(ok && NumberAt(&reply, "nInserted") == kBatch, "seed 100,000 documents",
        ok ? Json(&reply) : ErrorText(error));
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);
}

// 100,000 inserts whose _ids repeat the previous one exactly at kDuplicatePositions.
void QueueInsertsWithDuplicates(mongoc_bulk_operation_t* bulk) {
  for (std::int64_t i = 0; i < kBatch; ++i) {
    const bool duplicate = std::find(kDuplicatePositions.begin(), kDuplicatePositions.end(), i) !=
                           kDuplicatePositions.end();
    InsertInt(bulk, duplicate ? i - 1 : i, "v", duplicate ? -1 : i);
  }
}

void UnorderedInsertOf100000ReportsEveryDuplicateKey(mongoc_client_t* client) {
  g_test = "unordered insert of 100,000 reports every duplicate key";
  mongoc_collection_t* coll = FreshCollection(client, "unordered_dups");
  mongoc_bulk_operation_t* bulk = NewBulk(coll, false);
  QueueInsertsWithDuplicates(bulk);
  const int inserts_before = g_commands_started["insert"];
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(!ok && error.code == 11000, "execute fails with code 11000",
        ok ? "succeeded" : ErrorText(error));
  Check(g_commands_started["insert"] - inserts_before == 1,
        "the 100,000 inserts went out as one insert command",
        std::to_string(g_commands_started["insert"] - inserts_before));
  const auto indexes = Indexes(&reply, "writeErrors");
  Check(indexes == kDuplicatePositions, "writeErrors indexes are the duplicate positions",
        Join(indexes));
  int position = 0;
  ForEachInArray(&reply, "writeErrors", [&](const bson_t& e) {
    const std::int64_t expected_key =
        kDuplicatePositions[std::min<std::size_t>(position++, kDuplicatePositions.size() - 1)] - 1;
    const std::string detail = Json(&e);
    Check(NumberAt(&e, "code") == 11000, "write error code is 11000", detail);
    Check(StringAt(&e, "errmsg").find("E11000 duplicate key error") == 0,
          "write error errmsg starts with E11000 duplicate key error", detail);
    Check(StringAt(&e, "errmsg").find("_id: " + std::to_string(expected_key) + " ") !=
              std::string::npos,
          "write error errmsg names the duplicate _id", detail);
  });
  Check(NumberAt(&reply, "nInserted") == kBatch - 4, "nInserted is 99,996", Json(&reply));
  Check(Count(coll) == kBatch - 4, "99,996 documents are stored");
  bson_t* original = BCON_NEW("_id", BCON_INT64(77776), "v", BCON_INT64(77776));
  Check(Count(coll, original) == 1, "the first document with a repeated _id is the one kept");
  bson_destroy(original);
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);
  mongoc_collection_destroy(coll);
}

void OrderedInsertOf100000StopsAtTheFirstDuplicateKey(mongoc_client_t* client) {
  g_test = "ordered insert of 100,000 stops at the first duplicate key";
  mongoc_collection_t* coll = FreshCollection(client, "ordered_dups");
  mongoc_bulk_operation_t* bulk = NewBulk(coll, true);
  QueueInsertsWithDuplicates(bulk);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(!ok && error.code == 11000, "execute fails with code 11000",
        ok ? "succeeded" : ErrorText(error));
  const auto indexes = Indexes(&reply, "writeErrors");
  Check(indexes == std::vector<std::int64_t>{kDuplicatePositions[0]},
        "exactly one write error, at the first duplicate", Join(indexes));
  Check(NumberAt(&reply, "nInserted") == kDuplicatePositions[0], "nInserted is 10", Json(&reply));
  Check(Count(coll) == kDuplicatePositions[0], "10 documents are stored");
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);
  mongoc_collection_destroy(coll);
}

void RawInsertCommandCarriesFullWriteErrors(mongoc_client_t* client) {
  g_test = "raw insert command of 100,000 documents (embedded array) carries full writeErrors";
  mongoc_collection_t* coll = FreshCollection(client, "raw_dups");
  bson_t command = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&command, "insert", "raw_dups");
  bson_t documents;
  BSON_APPEND_ARRAY_BEGIN(&command, "documents", &documents);
  char key_buffer[16];
  for (std::int64_t i = 0; i < kBatch; ++i) {
    const char* key;
    bson_uint32_to_string(static_cast<std::uint32_t>(i), &key, key_buffer, sizeof key_buffer);
    const bool duplicate = std::find(kDuplicatePositions.begin(), kDuplicatePositions.end(), i) !=
                           kDuplicatePositions.end();
    bson_t doc;
    bson_append_document_begin(&documents, key, -1, &doc);
    BSON_APPEND_INT64(&doc, "_id", duplicate ? i - 1 : i);
    bson_append_document_end(&documents, &doc);
  }
  bson_append_array_end(&command, &documents);
  BSON_APPEND_BOOL(&command, "ordered", false);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_collection_command_simple(coll, &command, nullptr, &reply, &error);
  Check(ok && NumberAt(&reply, "ok") == 1, "command replies ok: 1", ok ? "" : ErrorText(error));
  Check(NumberAt(&reply, "n") == kBatch - 4, "n is 99,996", Json(&reply));
  const auto indexes = Indexes(&reply, "writeErrors");
  Check(indexes == kDuplicatePositions, "writeErrors indexes are the duplicate positions",
        Join(indexes));
  std::size_t position = 0;
  ForEachInArray(&reply, "writeErrors", [&](const bson_t& e) {
    const std::int64_t expected_key =
        kDuplicatePositions[std::min(position++, kDuplicatePositions.size() - 1)] - 1;
    const std::string detail = Json(&e);
    Check(NumberAt(&e, "code") == 11000, "code is 11000", detail);
    Check(StringAt(&e, "codeName") == "DuplicateKey", "codeName is DuplicateKey", detail);
    Check(NumberAt(&e, "keyPattern._id") == 1, "keyPattern is {_id: 1}", detail);
    Check(NumberAt(&e, "keyValue._id") == expected_key, "keyValue is the duplicate _id", detail);
  });
  Check(Count(coll) == kBatch - 4, "99,996 documents are stored");
  bson_destroy(&reply);
  bson_destroy(&command);
  mongoc_collection_destroy(coll);
}

void UpdateOne(mongoc_bulk_operation_t* bulk, const bson_t* selector, const bson_t* update,
               bool upsert) {
  bson_t opts = BSON_INITIALIZER;
  if (upsert) BSON_APPEND_BOOL(&opts, "upsert", true);
  bson_error_t error;
  if (!mongoc_bulk_operation_update_one_with_opts(bulk, selector, update, &opts, &error)) {
    Check(false, "queue update_one", ErrorText(error));
  }
  bson_destroy(&opts);
}

// [0, 25k): $inc existing; [25k, 50k): remove existing; [50k, 75k): insert new; [75k, 100k): $set
// that changes nothing on existing documents, except upserts at kUpsertPositions.
void MixedUpdatesDeletesInsertsAndUpserts(mongoc_client_t* client, bool ordered) {
  g_test = std::string(ordered ? "ordered" : "unordered") +
           " bulk of 100,000 updates, deletes, inserts and upserts";
  const std::vector<std::int64_t> upsert_positions = {75000, 87654, 99999};
  mongoc_collection_t* coll =
      FreshCollection(client, ordered ? "mixed_ordered" : "mixed_unordered");
  Seed(coll);
  mongoc_bulk_operation_t* bulk = NewBulk(coll, ordered);
  bson_t* inc = BCON_NEW("$inc", "{", "n", BCON_INT32(1), "}");
  // Int64 like the seeded value: a $set that changes only the type is a modification.
  bson_t* set_zero = BCON_NEW("$set", "{", "n", BCON_INT64(0), "}");
  for (std::int64_t i = 0; i < kBatch; ++i) {
    if (std::find(upsert_positions.begin(), upsert_positions.end(), i) != upsert_positions.end()) {
      const std::string id = "up" + std::to_string(i);
      bson_t* selector = BCON_NEW("_id", BCON_UTF8(id.c_str()));
      bson_t* set = BCON_NEW("$set", "{", "n", BCON_INT64(i), "}");
      UpdateOne(bulk, selector, set, true);
      bson_destroy(set);
      bson_destroy(selector);
      continue;
    }
    bson_t selector = BSON_INITIALIZER;
    BSON_APPEND_INT64(&selector, "_id", i);
    if (i < kQuarter) {
      UpdateOne(bulk, &selector, inc, false);
    } else if (i < 2 * kQuarter) {
      mongoc_bulk_operation_remove_one_with_opts(bulk, &selector, nullptr, nullptr);
    } else if (i < 3 * kQuarter) {
      InsertInt(bulk, kBatch + i, "n", 2);
    } else {
      UpdateOne(bulk, &selector, set_zero, false);
    }
    bson_destroy(&selector);
  }
  bson_destroy(set_zero);
  bson_destroy(inc);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(ok, "execute succeeds", ok ? "" : ErrorText(error) + " " + Json(&reply));
  Check(NumberAt(&reply, "nInserted") == kQuarter, "nInserted is 25,000", Json(&reply));
  Check(NumberAt(&reply, "nMatched") == 2 * kQuarter - 3, "nMatched is 49,997", Json(&reply));
  Check(NumberAt(&reply, "nModified") == kQuarter, "nModified is 25,000", Json(&reply));
  Check(NumberAt(&reply, "nRemoved") == kQuarter, "nRemoved is 25,000", Json(&reply));
  Check(NumberAt(&reply, "nUpserted") == 3, "nUpserted is 3", Json(&reply));
  const auto indexes = Indexes(&reply, "upserted");
  Check(indexes == upsert_positions, "upserted indexes are the upserting operations",
        Join(indexes));
  std::vector<std::string> ids;
  ForEachInArray(&reply, "upserted", [&](const bson_t& u) { ids.push_back(StringAt(&u, "_id")); });
  Check(ids == std::vector<std::string>{"up75000", "up87654", "up99999"}, "upserted _ids",
        Json(&reply));
  Check(Count(coll) == kBatch + 3, "100,003 documents are stored");
  bson_t* one = BCON_NEW("n", BCON_INT32(1));
  Check(Count(coll, one) == kQuarter, "25,000 documents have n: 1");
  bson_destroy(one);
  bson_t* removed =
      BCON_NEW("_id", "{", "$gte", BCON_INT64(kQuarter), "$lt", BCON_INT64(2 * kQuarter), "}");
  Check(Count(coll, removed) == 0, "the removed range is empty");
  bson_destroy(removed);
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);
  mongoc_collection_destroy(coll);
}

void UpdatesStopAtTheFirstFailureOnlyWhenOrdered(mongoc_client_t* client, bool ordered) {
  constexpr std::int64_t kFailing = 60000;
  g_test = std::string(ordered ? "ordered" : "unordered") + " 100,000 updates with one failing";
  mongoc_collection_t* coll = FreshCollection(client, ordered ? "inc_ordered" : "inc_unordered");
  Seed(coll, kFailing);
  mongoc_bulk_operation_t* bulk = NewBulk(coll, ordered);
  bson_t* inc = BCON_NEW("$inc", "{", "n", BCON_INT32(1), "}");
  for (std::int64_t i = 0; i < kBatch; ++i) {
    bson_t selector = BSON_INITIALIZER;
    BSON_APPEND_INT64(&selector, "_id", i);
    UpdateOne(bulk, &selector, inc, false);
    bson_destroy(&selector);
  }
  bson_destroy(inc);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(!ok && error.code == 14, "execute fails with code 14 (TypeMismatch)",
        ok ? "succeeded" : ErrorText(error));
  const auto indexes = Indexes(&reply, "writeErrors");
  Check(indexes == std::vector<std::int64_t>{kFailing}, "one write error, at the failing update",
        Join(indexes));
  const std::int64_t applied = ordered ? kFailing : kBatch - 1;
  Check(NumberAt(&reply, "nMatched") == applied && NumberAt(&reply, "nModified") == applied,
        "nMatched and nModified count the applied updates", Json(&reply));
  bson_t* one = BCON_NEW("n", BCON_INT32(1));
  Check(Count(coll, one) == applied, "the applied updates are stored");
  bson_destroy(one);
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);
  mongoc_collection_destroy(coll);
}

void UpsertsReportTheirIndexAndId(mongoc_client_t* client) {
  g_test = "upserts report their index and _id";
  mongoc_collection_t* coll = FreshCollection(client, "upserts");
  mongoc_bulk_operation_t* bulk = NewBulk(coll, true);
  bson_t* a = BCON_NEW("_id", BCON_UTF8("a"));
  bson_t* c = BCON_NEW("_id", BCON_UTF8("c"));
  bson_t* set1 = BCON_NEW("$set", "{", "x", BCON_INT32(1), "}");
  bson_t* set3 = BCON_NEW("$set", "{", "x", BCON_INT32(3), "}");
  UpdateOne(bulk, a, set1, true);  // 0: upserts "a"
  bson_t* b = BCON_NEW("_id", BCON_UTF8("b"));
  mongoc_bulk_operation_insert_with_opts(bulk, b, nullptr, nullptr);  // 1: insert
  UpdateOne(bulk, c, set1, true);                                     // 2: upserts "c"
  UpdateOne(bulk, a, set3, true);                                     // 3: matches "a"
  bson_t* generated = BCON_NEW("k", BCON_UTF8("generated"));
  bson_t* replacement = BCON_NEW("k", BCON_UTF8("generated"), "x", BCON_INT32(4));
  bson_t upsert_opts = BSON_INITIALIZER;
  BSON_APPEND_BOOL(&upsert_opts, "upsert", true);
  mongoc_bulk_operation_replace_one_with_opts(bulk, generated, replacement, &upsert_opts,
                                              nullptr);  // 4
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(ok, "execute succeeds", ok ? "" : ErrorText(error));
  Check(NumberAt(&reply, "nUpserted") == 3 && NumberAt(&reply, "nInserted") == 1 &&
            NumberAt(&reply, "nMatched") == 1 && NumberAt(&reply, "nModified") == 1,
        "nUpserted 3, nInserted 1, nMatched 1, nModified 1", Json(&reply));
  const auto indexes = Indexes(&reply, "upserted");
  Check(indexes == std::vector<std::int64_t>{0, 2, 4}, "upserted indexes are 0, 2, 4",
        Join(indexes));
  std::vector<std::string> ids;
  bson_oid_t generated_id;
  bool got_oid = false;
  ForEachInArray(&reply, "upserted", [&](const bson_t& u) {
    bson_iter_t iter;
    if (bson_iter_init_find(&iter, &u, "_id") && BSON_ITER_HOLDS_OID(&iter)) {
      bson_oid_copy(bson_iter_oid(&iter), &generated_id);
      got_oid = true;
    } else {
      ids.push_back(StringAt(&u, "_id"));
    }
  });
  Check(ids == std::vector<std::string>{"a", "c"}, "upserted _ids a and c", Json(&reply));
  Check(got_oid, "the replace upsert got a server-generated ObjectId", Json(&reply));
  if (got_oid) {
    bson_t* by_id =
        BCON_NEW("_id", BCON_OID(&generated_id), "k", BCON_UTF8("generated"), "x", BCON_INT32(4));
    Check(Count(coll, by_id) == 1, "the reported ObjectId is the stored document's _id");
    bson_destroy(by_id);
  }
  bson_t* a_is_3 = BCON_NEW("_id", BCON_UTF8("a"), "x", BCON_INT32(3));
  Check(Count(coll, a_is_3) == 1, "the matching update after the upsert applied");
  bson_destroy(a_is_3);
  bson_destroy(&upsert_opts);
  for (bson_t* doc : {a, b, c, set1, set3, generated, replacement}) bson_destroy(doc);
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);
  mongoc_collection_destroy(coll);
}

void UnacknowledgedInsertsAreVisibleToTheNextReadOnTheConnection(mongoc_client_t* client) {
  g_test = "w:0 read-your-writes after 200,000 inserts";
  // A single-threaded mongoc_client_t keeps one connection per server: the count below follows
  // every w:0 insert on the same socket.
  constexpr std::int64_t kTotal = 200000;
  constexpr std::int64_t kChunk = 50000;
  mongoc_collection_t* coll = FreshCollection(client, "w0");
  bson_t* w0 = BCON_NEW("w", BCON_INT32(0));
  const std::string pad(100, 'x');
  for (std::int64_t start = 0; start < kTotal; start += kChunk) {
    mongoc_bulk_operation_t* bulk = NewBulk(coll, true, w0);
    for (std::int64_t i = start; i < start + kChunk; ++i) {
      bson_t doc = BSON_INITIALIZER;
      BSON_APPEND_INT64(&doc, "_id", i);
      BSON_APPEND_UTF8(&doc, "pad", pad.c_str());
      mongoc_bulk_operation_insert_with_opts(bulk, &doc, nullptr, nullptr);
      bson_destroy(&doc);
    }
    bson_t reply;
    bson_error_t error;
    const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
    Check(ok, "w:0 bulk of 50,000 inserts is sent", ok ? "" : ErrorText(error));
    bson_destroy(&reply);
    mongoc_bulk_operation_destroy(bulk);
  }
  bson_destroy(w0);
  const std::int64_t count = Count(coll);
  Check(count == kTotal, "count on the same client sees all 200,000", std::to_string(count));
  mongoc_collection_destroy(coll);
}

bool Command(mongoc_client_t* client, const char* db, const bson_t* command, bson_t* reply) {
  bson_error_t error;
  const bool ok = mongoc_client_command_simple(client, db, command, nullptr, reply, &error);
  if (!ok) Check(false, std::string("command ") + Json(command), ErrorText(error));
  return ok;
}

std::int64_t UnacknowledgedWriteErrors(mongoc_client_t* client) {
  bson_t* command = BCON_NEW("serverStatus", BCON_INT32(1));
  bson_t reply;
  Command(client, "admin", command, &reply);
  const std::int64_t value = NumberAt(&reply, "metrics.quarry.unacknowledgedWriteErrors");
  bson_destroy(&reply);
  bson_destroy(command);
  return value;
}

void GetLastErrorReportsAnUnacknowledgedDuplicate(mongoc_client_t* client) {
  g_test = "getLastError after w:0 writes";
  mongoc_collection_t* coll = FreshCollection(client, "gle");
  const std::int64_t errors_before = UnacknowledgedWriteErrors(client);
  bson_t* w0_opts = BCON_NEW("writeConcern", "{", "w", BCON_INT32(0), "}");
  bson_t* one = BCON_NEW("_id", BCON_INT32(1));
  bson_t* two = BCON_NEW("_id", BCON_INT32(2));
  bson_error_t error;
  bool ok = mongoc_collection_insert_one(coll, one, nullptr, nullptr, &error);
  Check(ok, "acknowledged insert of _id 1", ok ? "" : ErrorText(error));
  ok = mongoc_collection_insert_one(coll, one, w0_opts, nullptr, &error);
  Check(ok, "w:0 insert of a duplicate _id reports no error to the client",
        ok ? "" : ErrorText(error));

  bson_t* gle = BCON_NEW("getLastError", BCON_INT32(1));
  bson_t reply;
  if (Command(client, kDatabase, gle, &reply)) {
    Check(NumberAt(&reply, "code") == 11000, "getLastError code is 11000", Json(&reply));
    Check(StringAt(&reply, "err").find("duplicate key") != std::string::npos,
          "getLastError err mentions duplicate key", Json(&reply));
  }
  bson_destroy(&reply);

  ok = mongoc_collection_insert_one(coll, two, w0_opts, nullptr, &error);
  Check(ok, "w:0 insert of _id 2", ok ? "" : ErrorText(error));
  if (Command(client, kDatabase, gle, &reply)) {
    bson_iter_t iter;
    Check(bson_iter_init_find(&iter, &reply, "err") && BSON_ITER_HOLDS_NULL(&iter),
          "getLastError err is null after a successful write", Json(&reply));
    Check(!Has(&reply, "code"), "getLastError has no code after a successful write", Json(&reply));
    Check(NumberAt(&reply, "n") == 1, "getLastError n is 1", Json(&reply));
  }
  bson_destroy(&reply);
  const std::int64_t errors_after = UnacknowledgedWriteErrors(client);
  Check(errors_before >= 0 && errors_after - errors_before == 1,
        "serverStatus metrics.quarry.unacknowledgedWriteErrors counts the one w:0 failure",
        std::to_string(errors_before) + " -> " + std::to_string(errors_after));
  Check(Count(coll) == 2, "2 documents are stored");
  for (bson_t* doc : {w0_opts, one, two, gle}) bson_destroy(doc);
  mongoc_collection_destroy(coll);
}

void JournaledAndMajorityWritesAreAcknowledged(mongoc_client_t* client) {
  g_test = "j:true, w:majority and wtimeout are acknowledged";
  mongoc_collection_t* coll = FreshCollection(client, "concerns");
  bson_t* concerns[] = {
      BCON_NEW("j", BCON_BOOL(true)),
      BCON_NEW("w", BCON_UTF8("majority")),
      BCON_NEW("w", BCON_UTF8("majority"), "j", BCON_BOOL(true)),
      BCON_NEW("w", BCON_INT32(1), "wtimeout", BCON_INT32(100)),
  };
  std::int64_t next_id = 0;
  for (bson_t* concern : concerns) {
    mongoc_bulk_operation_t* bulk = NewBulk(coll, true, concern);
    for (int i = 0; i < 1000; ++i) InsertInt(bulk, next_id++, "n", i);
    bson_t reply;
    bson_error_t error;
    const bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
    Check(ok && NumberAt(&reply, "nInserted") == 1000 && !Has(&reply, "writeConcernErrors.0"),
          "bulk of 1000 with writeConcern " + Json(concern) + " is acknowledged",
          ok ? Json(&reply) : ErrorText(error) + " " + Json(&reply));
    bson_destroy(&reply);
    mongoc_bulk_operation_destroy(bulk);
    bson_destroy(concern);
  }
  Check(Count(coll) == 4000, "4000 documents are stored");
  mongoc_collection_destroy(coll);
}

void UnsatisfiableWriteConcernAppliesTheWriteAndReportsAnError(mongoc_client_t* client) {
  g_test = "w:3 applies the write and reports a write concern error";
  mongoc_collection_t* coll = FreshCollection(client, "w3");
  bson_t* w3 = BCON_NEW("w", BCON_INT32(3));
  mongoc_bulk_operation_t* bulk = NewBulk(coll, true, w3);
  InsertInt(bulk, 1, "n", 1);
  InsertInt(bulk, 2, "n", 2);
  bson_t reply;
  bson_error_t error;
  bool ok = mongoc_bulk_operation_execute(bulk, &reply, &error) != 0;
  Check(!ok && error.domain == MONGOC_ERROR_WRITE_CONCERN && error.code == 100,
        "bulk execute fails with a write concern error, code 100",
        ok ? "succeeded" : ErrorText(error));
  Check(NumberAt(&reply, "nInserted") == 2, "nInserted is 2", Json(&reply));
  Check(NumberAt(&reply, "writeConcernErrors.0.code") == 100, "writeConcernErrors[0].code is 100",
        Json(&reply));
  Check(!Has(&reply, "writeErrors.0"), "no writeErrors", Json(&reply));
  bson_destroy(&reply);
  mongoc_bulk_operation_destroy(bulk);

  bson_t* opts = BCON_NEW("writeConcern", "{", "w", BCON_INT32(3), "}");
  bson_t* three = BCON_NEW("_id", BCON_INT32(3));
  ok = mongoc_collection_insert_one(coll, three, opts, &reply, &error);
  Check(!ok && error.code == 100, "insert_one with w:3 fails with code 100",
        ok ? "succeeded" : ErrorText(error));
  Check(NumberAt(&reply, "insertedCount") == 1, "insert_one reply insertedCount is 1",
        Json(&reply));
  bson_destroy(&reply);

  // The raw reply: {n: 1, writeConcernError: {code: 100, codeName: UnsatisfiableWriteConcern}}.
  bson_t* command = BCON_NEW("insert", BCON_UTF8("w3"), "documents", "[", "{", "_id", BCON_INT32(4),
                             "}", "]", "writeConcern", "{", "w", BCON_INT32(3), "}");
  ok = mongoc_client_command_simple(client, kDatabase, command, nullptr, &reply, &error);
  Check(NumberAt(&reply, "n") == 1, "raw insert reply n is 1", Json(&reply));
  Check(NumberAt(&reply, "writeConcernError.code") == 100 &&
            StringAt(&reply, "writeConcernError.codeName") == "UnsatisfiableWriteConcern",
        "raw insert reply writeConcernError is code 100 UnsatisfiableWriteConcern", Json(&reply));
  bson_destroy(&reply);
  Check(Count(coll) == 4, "all 4 documents are stored");
  for (bson_t* doc : {w3, opts, three, command}) bson_destroy(doc);
  mongoc_collection_destroy(coll);
}

// {<verb>: "limit", <field>: [count statements]} with an embedded array.
bson_t* BatchCommand(const char* verb, const char* field, int count) {
  bson_t* command = bson_new();
  BSON_APPEND_UTF8(command, verb, "limit");
  bson_t array;
  BSON_APPEND_ARRAY_BEGIN(command, field, &array);
  char key_buffer[16];
  for (int i = 0; i < count; ++i) {
    const char* key;
    bson_uint32_to_string(static_cast<std::uint32_t>(i), &key, key_buffer, sizeof key_buffer);
    bson_t item;
    bson_append_document_begin(&array, key, -1, &item);
    if (std::string(verb) == "insert") {
      BSON_APPEND_INT32(&item, "_id", i);
    } else {
      bson_t q;
      BSON_APPEND_DOCUMENT_BEGIN(&item, "q", &q);
      BSON_APPEND_INT32(&q, "_id", 0);
      bson_append_document_end(&item, &q);
      if (std::string(verb) == "update") {
        bson_t* u = BCON_NEW("$inc", "{", "n", BCON_INT32(1), "}");
        BSON_APPEND_DOCUMENT(&item, "u", u);
        bson_destroy(u);
      } else {
        BSON_APPEND_INT32(&item, "limit", 1);
      }
    }
    bson_append_document_end(&array, &item);
  }
  bson_append_array_end(command, &array);
  return command;
}

void BatchesOverTheLimitAreRefused(mongoc_client_t* client) {
  g_test = "batches over 100,000 statements are refused";
  mongoc_collection_t* coll = FreshCollection(client, "limit");
  bson_t reply;
  bson_error_t error;

  bson_t* command = BatchCommand("insert", "documents", kBatch + 1);
  bool ok = mongoc_client_command_simple(client, kDatabase, command, nullptr, &reply, &error);
  Check(!ok && error.code == 16, "insert of 100,001 documents fails with code 16",
        ok ? "succeeded: " + Json(&reply) : ErrorText(error));
  bson_destroy(&reply);
  bson_destroy(command);
  Check(Count(coll) == 0, "nothing was inserted by the refused batch");

  command = BatchCommand("insert", "documents", kBatch);
  ok = mongoc_client_command_simple(client, kDatabase, command, nullptr, &reply, &error);
  Check(ok && NumberAt(&reply, "n") == kBatch, "insert of exactly 100,000 documents is accepted",
        ok ? Json(&reply) : ErrorText(error));
  bson_destroy(&reply);
  bson_destroy(command);

  for (const auto& [verb, field] :
       {std::pair{"update", "updates"}, std::pair{"delete", "deletes"}}) {
    command = BatchCommand(verb, field, kBatch + 1);
    ok = mongoc_client_command_simple(client, kDatabase, command, nullptr, &reply, &error);
    Check(!ok && error.code == 16, std::string(verb) + " of 100,001 statements fails with code 16",
          ok ? "succeeded: " + Json(&reply) : ErrorText(error));
    bson_destroy(&reply);
    bson_destroy(command);
  }
  bson_t* untouched = BCON_NEW("_id", BCON_INT32(0), "n", "{", "$exists", BCON_BOOL(false), "}");
  Check(Count(coll, untouched) == 1, "the refused update and delete changed nothing");
  bson_destroy(untouched);
  Check(Count(coll) == kBatch, "100,000 documents are stored");
  mongoc_collection_destroy(coll);
}

void CountCommandStarted(const mongoc_apm_command_started_t* event) {
  ++g_commands_started[mongoc_apm_command_started_get_command_name(event)];
}

}  // namespace

int main(int argc, char** argv) {
  const char* env_uri = std::getenv("QUARRY_URI");
  std::string uri_text = argc > 1 ? argv[1] : (env_uri ? env_uri : "");
  if (uri_text.empty()) {
    std::fprintf(stderr, "usage: %s mongodb://host:port  (or set QUARRY_URI)\n", argv[0]);
    return 2;
  }
  mongoc_init();
  while (!uri_text.empty() && uri_text.back() == '/') uri_text.pop_back();
  uri_text +=
      "/?appname=quarry-libmongoc-bulk-test&serverSelectionTimeoutMS=5000&socketTimeoutMS=120000";
  bson_error_t error;
  mongoc_uri_t* uri = mongoc_uri_new_with_error(uri_text.c_str(), &error);
  if (uri == nullptr) {
    std::fprintf(stderr, "bad URI %s: %s\n", uri_text.c_str(), error.message);
    return 2;
  }
  mongoc_client_t* client = mongoc_client_new_from_uri(uri);
  mongoc_client_set_error_api(client, MONGOC_ERROR_API_VERSION_2);
  mongoc_apm_callbacks_t* callbacks = mongoc_apm_callbacks_new();
  mongoc_apm_set_command_started_cb(callbacks, CountCommandStarted);
  mongoc_client_set_apm_callbacks(client, callbacks, nullptr);

  UnorderedInsertOf100000ReportsEveryDuplicateKey(client);
  OrderedInsertOf100000StopsAtTheFirstDuplicateKey(client);
  RawInsertCommandCarriesFullWriteErrors(client);
  MixedUpdatesDeletesInsertsAndUpserts(client, /*ordered=*/true);
  MixedUpdatesDeletesInsertsAndUpserts(client, /*ordered=*/false);
  UpdatesStopAtTheFirstFailureOnlyWhenOrdered(client, /*ordered=*/true);
  UpdatesStopAtTheFirstFailureOnlyWhenOrdered(client, /*ordered=*/false);
  UpsertsReportTheirIndexAndId(client);
  UnacknowledgedInsertsAreVisibleToTheNextReadOnTheConnection(client);
  GetLastErrorReportsAnUnacknowledgedDuplicate(client);
  JournaledAndMajorityWritesAreAcknowledged(client);
  UnsatisfiableWriteConcernAppliesTheWriteAndReportsAnError(client);
  BatchesOverTheLimitAreRefused(client);

  mongoc_database_t* database = mongoc_client_get_database(client, kDatabase);
  mongoc_database_drop(database, nullptr);
  mongoc_database_destroy(database);
  mongoc_client_destroy(client);
  mongoc_apm_callbacks_destroy(callbacks);
  mongoc_uri_destroy(uri);
  mongoc_cleanup();
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
