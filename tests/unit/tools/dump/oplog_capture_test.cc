#include "tools/dump/oplog_capture.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::tools::dumping {
namespace {

std::string Canonical(const bson_t* doc) {
  char* json = bson_as_canonical_extended_json(doc, nullptr);
  std::string text = json;
  bson_free(json);
  return text;
}

client::BsonPtr Event(const char* json) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json), -1, &error);
  EXPECT_NE(doc, nullptr) << error.message;
  return client::BsonPtr(doc);
}

// The entry for `event`, "none", or "error: ...".
std::string EntryOf(const char* event_json) {
  client::BsonPtr event = Event(event_json);
  bson_t entry = BSON_INITIALIZER;
  auto converted = OplogEntryOf(*event, &entry);
  std::string result = !converted.ok()      ? "error: " + std::string(converted.status().reason())
                       : !converted.value() ? "none"
                                            : Canonical(&entry);
  bson_destroy(&entry);
  return result;
}

constexpr const char* kHead =
    R"("clusterTime": {"$timestamp": {"t": 7, "i": 2}}, "ns": {"db": "d", "coll": "c"}, )"
    R"("documentKey": {"_id": 1}, )";

TEST(OplogEntryOf, InsertsUpdatesAndDeletesBecomeOplogEntries) {
  EXPECT_EQ(
      EntryOf((std::string("{\"operationType\": \"insert\", ") + kHead +
               R"("fullDocument": {"_id": 1, "a": 2}})")
                  .c_str()),
      R"({ "ts" : { "$timestamp" : { "t" : 7, "i" : 2 } }, "t" : { "$numberLong" : "1" }, "v" : { "$numberInt" : "2" }, )"
      R"("op" : "i", "ns" : "d.c", "o" : { "_id" : { "$numberInt" : "1" }, "a" : { "$numberInt" : "2" } } })");
  EXPECT_EQ(
      EntryOf((std::string("{\"operationType\": \"update\", ") + kHead +
               R"("fullDocument": {"_id": 1, "a": 3}})")
                  .c_str()),
      R"({ "ts" : { "$timestamp" : { "t" : 7, "i" : 2 } }, "t" : { "$numberLong" : "1" }, "v" : { "$numberInt" : "2" }, )"
      R"("op" : "u", "ns" : "d.c", "o" : { "_id" : { "$numberInt" : "1" }, "a" : { "$numberInt" : "3" } }, )"
      R"("o2" : { "_id" : { "$numberInt" : "1" } } })");
  EXPECT_EQ(
      EntryOf((std::string("{\"operationType\": \"delete\", ") + kHead + "\"x\": 1}").c_str()),
      R"({ "ts" : { "$timestamp" : { "t" : 7, "i" : 2 } }, "t" : { "$numberLong" : "1" }, "v" : { "$numberInt" : "2" }, )"
      R"("op" : "d", "ns" : "d.c", "o" : { "_id" : { "$numberInt" : "1" } } })");
}

TEST(OplogEntryOf, AnUpdateWhoseDocumentIsGoneWaitsForItsDelete) {
  EXPECT_EQ(
      EntryOf((std::string("{\"operationType\": \"update\", ") + kHead + "\"fullDocument\": null}")
                  .c_str()),
      "none");
}

TEST(OplogEntryOf, DropsAndRenamesFailTheDump) {
  EXPECT_EQ(EntryOf(R"({"operationType": "drop", "ns": {"db": "d", "coll": "c"}})"),
            "error: d.c saw a drop during the dump, which an oplog of documents cannot replay; "
            "dump again");
}

}  // namespace
}  // namespace quarry::tools::dumping
