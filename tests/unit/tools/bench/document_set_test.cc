// DocumentSet keeps documents back to back and hands out views of them.
#include "tools/bench/document_set.h"

#include <gtest/gtest.h>

namespace quarry::tools::bench {
namespace {

class CountingGenerator : public DocumentGenerator {
 public:
  void Next(bson_t* out) override { BSON_APPEND_INT32(out, "n", n_++); }

 private:
  int n_ = 0;
};

TEST(DocumentSetTest, ViewsReadBackTheAppendedDocuments) {
  CountingGenerator generator;
  DocumentSet set = GenerateCount(generator, 3);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_EQ(set.bytes(), 3 * 12u);  // {n: int32} is 12 bytes
  for (std::size_t i = 0; i < set.size(); ++i) {
    bson_t doc;
    set.View(i, &doc);
    bson_iter_t iter;
    ASSERT_TRUE(bson_iter_init_find(&iter, &doc, "n"));
    EXPECT_EQ(bson_iter_int32(&iter), static_cast<int>(i));
  }
}

TEST(DocumentSetTest, GenerateBytesStopsOnceTheTotalIsReached) {
  CountingGenerator generator;
  EXPECT_EQ(GenerateBytes(generator, 100).size(), 9u);  // 9 * 12 = 108 >= 100
  EXPECT_EQ(GenerateBytes(generator, 1).size(), 1u);
}

}  // namespace
}  // namespace quarry::tools::bench
