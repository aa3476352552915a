#include "tools/dump/collection_metadata.h"

#include <gtest/gtest.h>

#include "tools/dump/dump_run.h"

namespace quarry::tools::dumping {
namespace {

TEST(CollectionMetadata, JsonRoundTripsWithMongodumpsKeys) {
  CollectionMetadata metadata;
  metadata.name = "orders";
  metadata.uuid = "00112233445566778899aabbccddeeff";
  metadata.options = client::BsonPtr(BCON_NEW("collation", "{", "locale", BCON_UTF8("fr"), "}"));
  metadata.indexes.emplace_back(BCON_NEW("v", BCON_INT32(2), "key", "{", "_id", BCON_INT32(1), "}",
                                         "name", BCON_UTF8("_id_")));
  metadata.indexes.emplace_back(BCON_NEW("v", BCON_INT32(2), "key", "{", "total", BCON_INT32(-1),
                                         "}", "name", BCON_UTF8("total_-1"), "unique",
                                         BCON_BOOL(true)));
  const std::string json = MetadataJson(metadata);
  EXPECT_EQ(json.rfind("{ \"options\" : { \"collation\"", 0), 0u) << json;
  EXPECT_NE(json.find("\"uuid\" : \"00112233445566778899aabbccddeeff\", \"collectionName\" : "
                      "\"orders\", \"type\" : \"collection\""),
            std::string::npos);
  auto parsed = ParseMetadataJson(json, "ignored");
  ASSERT_TRUE(parsed.ok()) << parsed.status().reason();
  EXPECT_EQ(parsed.value().name, "orders");
  EXPECT_EQ(parsed.value().uuid, metadata.uuid);
  ASSERT_EQ(parsed.value().indexes.size(), 2u);
  EXPECT_TRUE(bson_equal(parsed.value().indexes[1].get(), metadata.indexes[1].get()));
  EXPECT_TRUE(bson_equal(parsed.value().options.get(), metadata.options.get()));
}

TEST(CollectionMetadata, BadJsonIsAParseError) {
  EXPECT_EQ(ParseMetadataJson("{\"indexes\": ", "c").status().code(), ErrorCode::kFailedToParse);
}

TEST(CollectionMetadata, IndexSpecForCreateDropsServerFields) {
  client::BsonPtr dumped(BCON_NEW("v", BCON_INT32(2), "key", "{", "a", BCON_INT32(1), "}", "name",
                                  BCON_UTF8("a_1"), "ns", BCON_UTF8("db.c"), "sparse",
                                  BCON_BOOL(true)));
  client::BsonPtr spec = IndexSpecForCreate(*dumped);
  client::BsonPtr expected(BCON_NEW("key", "{", "a", BCON_INT32(1), "}", "name", BCON_UTF8("a_1"),
                                    "sparse", BCON_BOOL(true)));
  EXPECT_TRUE(bson_equal(spec.get(), expected.get()));
}

TEST(NamespaceMatches, StarsMatchAnyRun) {
  EXPECT_TRUE(NamespaceMatches("shop.*", "shop.orders"));
  EXPECT_TRUE(NamespaceMatches("*.orders", "shop.orders"));
  EXPECT_TRUE(NamespaceMatches("s*p.o*s", "shop.orders"));
  EXPECT_TRUE(NamespaceMatches("shop.orders", "shop.orders"));
  EXPECT_FALSE(NamespaceMatches("shop.order", "shop.orders"));
  EXPECT_FALSE(NamespaceMatches("shop.*", "shopping.orders"));
  EXPECT_TRUE(NamespaceMatches("*", "anything.at.all"));
}

TEST(FileNames, EscapeWhatFileSystemsRefuseAndUnescapeBack) {
  EXPECT_EQ(EscapeFileName("a/b%c"), "a%2Fb%25c");
  EXPECT_EQ(UnescapeFileName("a%2Fb%25c"), "a/b%c");
  EXPECT_EQ(UnescapeFileName(EscapeFileName("plain.name")), "plain.name");
}

}  // namespace
}  // namespace quarry::tools::dumping
