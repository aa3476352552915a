#include <bson/bson.h>
#include <gtest/gtest.h>

#include "tools/bench/client_codecs.h"
#include "tools/bench/large_document.h"

namespace quarry::tools::bench {
namespace {

TEST(LargeJsonDocument, ReachesTheSizeAndParses) {
  const std::string json = LargeJsonDocument("doc", 200'000, 7);
  EXPECT_GE(json.size(), 200'000u);
  EXPECT_LT(json.size(), 201'000u);
  EXPECT_EQ(json, LargeJsonDocument("doc", 200'000, 7));
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  ASSERT_NE(doc, nullptr) << error.message;
  bson_iter_t iter;
  ASSERT_TRUE(bson_iter_init_find(&iter, doc, "records"));
  EXPECT_TRUE(BSON_ITER_HOLDS_ARRAY(&iter));
  bson_destroy(doc);
}

TEST(ClientCodecs, EveryCodecRoundTripsAndTheCompressorsShrinkText) {
  const std::string json = LargeJsonDocument("doc", 100'000, 3);
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  ASSERT_NE(doc, nullptr);
  for (ClientCodec codec : AllClientCodecs()) {
    auto encoded = EncodeForClient(codec, json, *doc);
    ASSERT_TRUE(encoded.ok()) << ClientCodecName(codec);
    auto decoded = DecodeForClient(codec, encoded.value());
    ASSERT_TRUE(decoded.ok()) << ClientCodecName(codec);
    if (codec == ClientCodec::kMsgpack) {
      EXPECT_EQ(decoded.value(), 2u);  // the map's two keys: _id and records
    } else {
      EXPECT_EQ(decoded.value(), json.size()) << ClientCodecName(codec);
    }
    if (codec == ClientCodec::kBrotli1 || codec == ClientCodec::kGzip3 ||
        codec == ClientCodec::kDeflate3) {
      EXPECT_LT(encoded.value().size(), json.size() / 3) << ClientCodecName(codec);
    }
  }
  bson_destroy(doc);
  EXPECT_FALSE(DecodeForClient(ClientCodec::kBrotli1, "not brotli").ok());
  EXPECT_FALSE(DecodeForClient(ClientCodec::kGzip3, "not gzip").ok());
}

}  // namespace
}  // namespace quarry::tools::bench
