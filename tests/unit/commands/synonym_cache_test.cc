#include "commands/search/synonym_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "bson/json.h"
#include "text/custom_analyzer.h"
#include "text/search_analyzer.h"

namespace quarry::commands {
namespace {

class SynonymCacheTest : public ::testing::Test {
 protected:
  // Gets the mapping "m" of db.words (id `id`), counting the reads it takes.
  SynonymCache::Read Get(storage::CollectionId id,
                         const text::SearchAnalyzer* analyzer = &text::SearchAnalyzer::Standard(),
                         Status outcome = Status::OK()) {
    return cache_.Get("db", "words", id, "m", analyzer, [&]() -> SynonymCache::Read {
      ++reads_;
      if (!outcome.ok()) return outcome;
      return std::shared_ptr<const text::SynonymMap>(std::make_shared<text::SynonymMap>(analyzer));
    });
  }

  void CommitTo(storage::CollectionId id) {
    storage::CommittedBatch batch;
    batch.entries.push_back({.ts = 1, .collection = id, .entry = {}});
    cache_.OnCommit(batch);
  }

  SynonymCache cache_;
  int reads_ = 0;
};

TEST_F(SynonymCacheTest, KeepsAMappingUntilItsCollectionChanges) {
  const SynonymCache::Read first = Get(7);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Get(7).value(), first.value());
  EXPECT_EQ(reads_, 1);
  CommitTo(8);  // another collection
  EXPECT_EQ(Get(7).value(), first.value());
  EXPECT_EQ(reads_, 1);
  CommitTo(7);
  EXPECT_NE(Get(7).value(), first.value());
  EXPECT_EQ(reads_, 2);
  // The collection replaced by another of the same name (or dropped: id 0) is read again.
  EXPECT_TRUE(Get(9).ok());
  EXPECT_TRUE(Get(0).ok());
  EXPECT_EQ(reads_, 4);
}

TEST_F(SynonymCacheTest, KeepsInvalidMappingsButNotFailedReads) {
  EXPECT_EQ(Get(7, &text::SearchAnalyzer::Standard(), Status(ErrorCode::kBadValue, "bad"))
                .status()
                .code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(Get(7).status().code(), ErrorCode::kBadValue);  // kept: the collection is the same
  EXPECT_EQ(reads_, 1);
  CommitTo(7);
  EXPECT_EQ(Get(7, &text::SearchAnalyzer::Standard(), Status(ErrorCode::kInterrupted, "killed"))
                .status()
                .code(),
            ErrorCode::kInterrupted);
  EXPECT_TRUE(Get(7).ok());  // an interrupted read was not kept
  EXPECT_EQ(reads_, 3);
}

TEST_F(SynonymCacheTest, MappingsOfCustomAnalyzersAreReadEveryTime) {
  const bson::Document document =
      bson::FromJson(R"({"a": {"name": "mine", "tokenizer": {"type": "whitespace"}}})").value();
  auto custom = text::ParseCustomAnalyzer(document.view().Get("a"), "analyzers[0]").value();
  EXPECT_TRUE(Get(7, &custom->analyzer()).ok());
  EXPECT_TRUE(Get(7, &custom->analyzer()).ok());
  EXPECT_EQ(reads_, 2);
}

}  // namespace
}  // namespace quarry::commands
