#include "bench/import/ndjson_file.h"

#include <bson/bson.h>
#include <gtest/gtest.h>

#include "tools/import/json_to_bson.h"

namespace quarry::bench::import {
namespace {

TEST(NdjsonDocument, IsOneLineOfJsonOfAboutAKilobyteThatImports) {
  tools::importing::JsonToBson converter;
  std::size_t total = 0;
  for (std::uint64_t id = 0; id < 200; ++id) {
    const std::string line = NdjsonDocument(id, 42);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    total += line.size();
    bson_t doc = BSON_INITIALIZER;
    Status converted = converter.Convert(line.data(), line.size(), line.size(), &doc);
    ASSERT_TRUE(converted.ok()) << converted.reason() << "\n" << line;
    bson_iter_t iter;
    ASSERT_TRUE(bson_iter_init_find(&iter, &doc, "_id"));
    EXPECT_EQ(bson_iter_as_int64(&iter), static_cast<std::int64_t>(id));
    ASSERT_TRUE(bson_iter_init(&iter, &doc));
    bson_iter_t since;
    ASSERT_TRUE(bson_iter_find_descendant(&iter, "host.since", &since));
    EXPECT_TRUE(BSON_ITER_HOLDS_DATE_TIME(&since));
    bson_destroy(&doc);
  }
  EXPECT_GT(total / 200, 800u);
  EXPECT_LT(total / 200, 1300u);
}

TEST(NdjsonDocument, TheSeedDecidesTheContent) {
  EXPECT_EQ(NdjsonDocument(7, 1), NdjsonDocument(7, 1));
  EXPECT_NE(NdjsonDocument(7, 1), NdjsonDocument(7, 2));
}

}  // namespace
}  // namespace quarry::bench::import
