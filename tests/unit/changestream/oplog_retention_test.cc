// Oplog retention: what a size or age window trims, that the newest second always stays, and
// that the history boundary is raised before entries go.
#include "changestream/oplog_retention.h"

#include <gtest/gtest.h>

#include <vector>

#include "changestream_test_util.h"

namespace quarry::changestream {
namespace {

using storage::MakeTimestamp;

class FakeTrimmer : public OplogTrimmer {
 public:
  Status TrimBefore(storage::Timestamp first_kept) override {
    calls.push_back(first_kept);
    if (retention != nullptr) boundary_seen_during_trim = retention->TrimmedBefore();
    return result;
  }
  std::vector<storage::Timestamp> calls;
  const OplogRetention* retention = nullptr;
  storage::Timestamp boundary_seen_during_trim = 0;
  Status result;
};

// One committed entry of `bytes` bytes (12 of them are the key) at `ts`.
void Commit(OplogRetention& retention, storage::Timestamp ts, std::size_t bytes) {
  bson::DocumentBuilder b;
  b.AppendString("p", std::string(bytes - 12 - 13, 'x'));
  bson::Document doc = std::move(b).Finish();
  EXPECT_EQ(doc.size() + 12, bytes);
  storage::CommittedBatch batch;
  batch.entries.push_back(storage::CommittedEntry{ts, 1, doc.view()});
  retention.OnCommit(batch);
}

RetentionPolicy Policy(std::uint64_t max_bytes, std::chrono::seconds max_age = {}) {
  RetentionPolicy policy;
  policy.max_bytes = max_bytes;
  policy.max_age = max_age;
  return policy;
}

std::chrono::system_clock::time_point AtSecond(std::int64_t second) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(second));
}

TEST(OplogRetentionTest, SizeWindowTrimsWholeOldestSeconds) {
  FakeTrimmer trimmer;
  OplogRetention retention(Policy(2500), &trimmer, 0);
  for (std::uint32_t second = 100; second < 105; ++second) {
    Commit(retention, MakeTimestamp(second, 1), 1000);
  }
  EXPECT_EQ(retention.bytes(), 5000u);
  auto boundary = retention.TrimOnce(AtSecond(200));
  ASSERT_TRUE(boundary.ok());
  EXPECT_EQ(boundary.value(), MakeTimestamp(103, 0));
  EXPECT_EQ(trimmer.calls, (std::vector<storage::Timestamp>{MakeTimestamp(103, 0)}));
  EXPECT_EQ(retention.TrimmedBefore(), MakeTimestamp(103, 0));
  EXPECT_EQ(retention.bytes(), 2000u);
  // Within the window now: nothing more to do.
  EXPECT_EQ(retention.TrimOnce(AtSecond(200)).value(), MakeTimestamp(103, 0));
  EXPECT_EQ(trimmer.calls.size(), 1u);
}

TEST(OplogRetentionTest, AgeWindowTrimsOlderSeconds) {
  FakeTrimmer trimmer;
  OplogRetention retention(Policy(0, std::chrono::seconds(60)), &trimmer, 0);
  Commit(retention, MakeTimestamp(1000, 1), 100);
  Commit(retention, MakeTimestamp(1030, 1), 100);
  Commit(retention, MakeTimestamp(1090, 1), 100);
  auto boundary = retention.TrimOnce(AtSecond(1100));
  ASSERT_TRUE(boundary.ok());
  EXPECT_EQ(boundary.value(), MakeTimestamp(1090, 0));
}

TEST(OplogRetentionTest, TheNewestSecondIsAlwaysKept) {
  FakeTrimmer trimmer;
  OplogRetention retention(Policy(10, std::chrono::seconds(1)), &trimmer, 0);
  Commit(retention, MakeTimestamp(50, 1), 1000);
  Commit(retention, MakeTimestamp(50, 2), 1000);
  EXPECT_EQ(retention.TrimOnce(AtSecond(10000)).value(), 0u);
  EXPECT_TRUE(trimmer.calls.empty());
  Commit(retention, MakeTimestamp(51, 1), 1000);
  EXPECT_EQ(retention.TrimOnce(AtSecond(10000)).value(), MakeTimestamp(51, 0));
}

TEST(OplogRetentionTest, BoundaryIsRaisedBeforeEntriesAreDeleted) {
  FakeTrimmer trimmer;
  OplogRetention retention(Policy(100), &trimmer, 0);
  trimmer.retention = &retention;
  Commit(retention, MakeTimestamp(1, 1), 1000);
  Commit(retention, MakeTimestamp(2, 1), 1000);
  ASSERT_TRUE(retention.TrimOnce(AtSecond(3)).ok());
  EXPECT_EQ(trimmer.boundary_seen_during_trim, MakeTimestamp(2, 0));
}

TEST(OplogRetentionTest, FailedTrimIsReportedAndRetried) {
  FakeTrimmer trimmer;
  trimmer.result = Status(ErrorCode::kInternalError, "disk");
  OplogRetention retention(Policy(100), &trimmer, 0);
  Commit(retention, MakeTimestamp(1, 1), 1000);
  Commit(retention, MakeTimestamp(2, 1), 1000);
  EXPECT_FALSE(retention.TrimOnce(AtSecond(3)).ok());
  EXPECT_EQ(retention.bytes(), 2000u);
  trimmer.result = Status::OK();
  trimmer.calls.clear();
  // The boundary stays raised (entries may be partly gone), and the next trim deletes again.
  EXPECT_EQ(retention.TrimmedBefore(), MakeTimestamp(2, 0));
  EXPECT_EQ(retention.TrimOnce(AtSecond(3)).value(), MakeTimestamp(2, 0));
  EXPECT_EQ(trimmer.calls, (std::vector<storage::Timestamp>{MakeTimestamp(2, 0)}));
  EXPECT_EQ(retention.bytes(), 1000u);
}

TEST(OplogRetentionTest, LoadCountsTheEntriesAlreadyInTheOplog) {
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.path());
  ASSERT_NE(engine, nullptr);
  testing::Writer writer(engine.get());
  writer.Insert("db.c", R"({"_id": 1})");
  writer.Insert("db.c", R"({"_id": 2})");
  std::uint64_t expected = 0;
  for (auto cursor = engine->oplog().Scan(0); cursor->Valid(); cursor->Next()) {
    expected += cursor->entry().size() + 12;
  }
  FakeTrimmer trimmer;
  OplogRetention retention({}, &trimmer, 0);
  ASSERT_TRUE(retention.Load(engine->oplog()).ok());
  EXPECT_EQ(retention.bytes(), expected);
  engine->pipeline().AddObserver(&retention);
  writer.Insert("db.c", R"({"_id": 3})");
  EXPECT_GT(retention.bytes(), expected);
  engine->pipeline().RemoveObserver(&retention);
  EXPECT_TRUE(engine->Close().ok());
}

}  // namespace
}  // namespace quarry::changestream
