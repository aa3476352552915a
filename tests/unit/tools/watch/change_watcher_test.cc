#include "tools/watch/change_watcher.h"

#include <gtest/gtest.h>

namespace quarry::tools::watch {
namespace {

TEST(WatchOptionsTest, CollectionWithoutDatabaseIsRejected) {
  WatchOptions options;
  options.collection = "c";
  EXPECT_EQ(ValidateWatchOptions(options).code(), ErrorCode::kBadValue);
}

TEST(WatchOptionsTest, UnknownFullDocumentModeIsRejected) {
  WatchOptions options;
  options.full_document = "sometimes";
  EXPECT_EQ(ValidateWatchOptions(options).code(), ErrorCode::kBadValue);
  options.full_document = "updateLookup";
  EXPECT_TRUE(ValidateWatchOptions(options).ok());
}

}  // namespace
}  // namespace quarry::tools::watch
