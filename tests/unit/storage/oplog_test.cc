// The oplog: entry shape, one total order under concurrent committers, timestamps across
// restarts, scans from a timestamp.
#include "storage/oplog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "storage_test_util.h"

namespace quarry::storage {
namespace {

using testing::DocWithIntId;
using testing::InsertOne;
using testing::OpenEngine;
using testing::Target;
using testing::TempDir;

TEST(OplogTest, EntryGetsTsFirstAndWallLast) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  std::int64_t before = NowMillis();
  InsertOne(*engine, 1, DocWithIntId(1));
  std::int64_t after = NowMillis();
  auto cursor = engine->oplog().Scan(0);
  ASSERT_TRUE(cursor->Valid());
  bson::DocumentView entry = cursor->entry();
  std::vector<std::string_view> keys;
  for (const bson::Element& e : entry) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string_view>{"ts", "op", "ns", "ui", "o", "wall"}));
  EXPECT_EQ(entry.Get("ts").type(), bson::Type::kTimestamp);
  EXPECT_EQ(entry.Get("ts").Timestamp(), cursor->ts());
  EXPECT_EQ(cursor->ts(), engine->oplog().LatestTimestamp());
  EXPECT_GE(entry.Get("wall").Date(), before);
  EXPECT_LE(entry.Get("wall").Date(), after);
  EXPECT_EQ(TimestampSeconds(cursor->ts()),
            static_cast<std::uint32_t>(entry.Get("wall").Date() / 1000));
  EXPECT_EQ(entry.Get("o").Document().Get("_id").Int32(), 1);
  cursor->Next();
  EXPECT_FALSE(cursor->Valid());
  EXPECT_TRUE(cursor->status().ok());
}

TEST(OplogTest, ConcurrentCommittersProduceOneGapFreeTotalOrder) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  constexpr int kThreads = 4;
  constexpr int kCommits = 60;
  constexpr int kPerCommit = 8;
  std::mutex mu;
  // last timestamp of each commit -> (thread, commit)
  std::map<Timestamp, std::pair<int, int>> commits;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCommits; ++c) {
        WriteUnit unit;
        for (int d = 0; d < kPerCommit; ++d) {
          bson::DocumentBuilder b;
          b.AppendInt32("_id", c * kPerCommit + d);
          b.AppendInt32("thread", t);
          b.AppendInt32("commit", c);
          bson::Document doc = std::move(b).Finish();
          unit.Insert(Target(100 + t), doc);
        }
        auto result = engine->pipeline().Commit(std::move(unit), CommitOptions{});
        ASSERT_TRUE(result.ok() && result.value().errors.empty());
        std::lock_guard lock(mu);
        commits[result.value().last_timestamp] = {t, c};
      }
    });
  }
  for (auto& thread : threads) thread.join();

  std::vector<Timestamp> seen;
  std::vector<std::pair<int, int>> owners;
  for (auto cursor = engine->oplog().Scan(0); cursor->Valid(); cursor->Next()) {
    seen.push_back(cursor->ts());
    bson::DocumentView o = cursor->entry().Get("o").Document();
    owners.emplace_back(o.Get("thread").Int32(), o.Get("commit").Int32());
  }
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kThreads * kCommits * kPerCommit));
  for (std::size_t i = 1; i < seen.size(); ++i) ASSERT_LT(seen[i - 1], seen[i]);
  // Each commit's entries are adjacent in the oplog with consecutive timestamps, ending at the
  // timestamp its Commit returned.
  for (std::size_t start = 0; start < seen.size(); start += kPerCommit) {
    for (int d = 1; d < kPerCommit; ++d) {
      ASSERT_EQ(owners[start + d], owners[start]);
      ASSERT_EQ(seen[start + d], seen[start] + d);
    }
    auto it = commits.find(seen[start + kPerCommit - 1]);
    ASSERT_NE(it, commits.end());
    EXPECT_EQ(it->second, owners[start]);
  }
}

TEST(OplogTest, TimestampsKeepIncreasingAcrossReopen) {
  TempDir dir;
  Timestamp before_close = 0;
  {
    auto engine = OpenEngine(dir.path());
    for (int id = 0; id < 5; ++id) InsertOne(*engine, 1, DocWithIntId(id));
    before_close = engine->oplog().LatestTimestamp();
    ASSERT_GT(before_close, 0u);
  }
  auto engine = OpenEngine(dir.path());
  EXPECT_EQ(engine->oplog().LatestTimestamp(), before_close);
  InsertOne(*engine, 1, DocWithIntId(99));
  EXPECT_GT(engine->oplog().LatestTimestamp(), before_close);
}

TEST(OplogTest, ScanFromATimestampStartsAtThatEntry) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  std::vector<Timestamp> stamps;
  for (int id = 0; id < 6; ++id) {
    InsertOne(*engine, 1, DocWithIntId(id));
    stamps.push_back(engine->oplog().LatestTimestamp());
  }
  auto from_third = engine->oplog().Scan(stamps[2]);
  ASSERT_TRUE(from_third->Valid());
  EXPECT_EQ(from_third->ts(), stamps[2]);
  auto after_third = engine->oplog().Scan(stamps[2] + 1);
  ASSERT_TRUE(after_third->Valid());
  EXPECT_EQ(after_third->ts(), stamps[3]);
  auto past_end = engine->oplog().Scan(stamps.back() + 1);
  EXPECT_FALSE(past_end->Valid());
  auto oldest = engine->oplog().OldestTimestamp();
  ASSERT_TRUE(oldest.ok());
  EXPECT_EQ(oldest.value(), stamps[0]);
}

TEST(OplogTest, ScanBackwardReadsNewestFirstFromATimestamp) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  std::vector<Timestamp> stamps;
  for (int id = 0; id < 4; ++id) {
    InsertOne(*engine, 1, DocWithIntId(id));
    stamps.push_back(engine->oplog().LatestTimestamp());
  }
  std::vector<Timestamp> all;
  for (auto it = engine->oplog().ScanBackward(~Timestamp{0}); it->Valid(); it->Next()) {
    all.push_back(it->ts());
  }
  EXPECT_EQ(all, (std::vector<Timestamp>{stamps[3], stamps[2], stamps[1], stamps[0]}));
  auto from_second = engine->oplog().ScanBackward(stamps[1]);
  ASSERT_TRUE(from_second->Valid());
  EXPECT_EQ(from_second->ts(), stamps[1]);
  EXPECT_EQ(from_second->entry().Get("o").Document().Get("_id").Int32(), 1);
  from_second->Next();
  ASSERT_TRUE(from_second->Valid());
  EXPECT_EQ(from_second->ts(), stamps[0]);
  from_second->Next();
  EXPECT_FALSE(from_second->Valid());
  EXPECT_FALSE(engine->oplog().ScanBackward(stamps[0] - 1)->Valid());
}

TEST(OplogTest, DdlEntriesWithoutRecordsAreLogged) {
  TempDir dir;
  auto engine = OpenEngine(dir.path());
  bson::DocumentBuilder o;
  o.AppendString("create", "c");
  WriteUnit unit;
  unit.LogCommand(0, "db", {}, std::move(o).Finish());
  auto result = engine->pipeline().Commit(std::move(unit), CommitOptions{});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value().applied, 1u);
  auto cursor = engine->oplog().Scan(0);
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->entry().Get("o").Document().Get("create").String(), "c");
}

}  // namespace
}  // namespace quarry::storage

namespace quarry::storage {
namespace {

TEST(OplogTest, TrimBeforeDeletesOlderEntriesAndItsBoundarySurvivesReopen) {
  TempDir dir;
  std::vector<Timestamp> stamps;
  {
    auto engine = testing::OpenEngine(dir.path());
    for (int id = 1; id <= 5; ++id) {
      testing::InsertOne(*engine, 1, testing::DocWithIntId(id));
      stamps.push_back(engine->oplog().LatestTimestamp());
    }
    EXPECT_EQ(engine->oplog().TrimmedBefore(), 0u);
    ASSERT_TRUE(engine->oplog().TrimBefore(stamps[3]).ok());
    EXPECT_EQ(engine->oplog().TrimmedBefore(), stamps[3]);
    auto cursor = engine->oplog().Scan(0);
    ASSERT_TRUE(cursor->Valid());
    EXPECT_EQ(cursor->ts(), stamps[3]);
    // The boundary never moves back.
    ASSERT_TRUE(engine->oplog().TrimBefore(stamps[1]).ok());
    EXPECT_EQ(engine->oplog().TrimmedBefore(), stamps[3]);
  }
  auto reopened = testing::OpenEngine(dir.path());
  EXPECT_EQ(reopened->oplog().TrimmedBefore(), stamps[3]);
  EXPECT_EQ(reopened->oplog().LatestTimestamp(), stamps[4]);
  EXPECT_EQ(reopened->oplog().OldestTimestamp().value(), stamps[3]);
}

std::uint64_t OplogFileBytes(const Engine& engine) {
  for (const FamilyFigures& family : engine.Figures().families) {
    if (family.name == "oplog") return family.live_sst_bytes;
  }
  return 0;
}

void WaitForCompactions(const Engine& engine) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const EngineFigures figures = engine.Figures();
    if (figures.running_compactions == 0 && figures.compaction_pending == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Trimming writes no range delete (which would keep every trimmed entry a snapshot still sees
// and make the next compaction rewrite the whole oplog): reads stop at the boundary and the
// table files wholly below it go.
TEST(OplogTest, TrimBeforeHidesOlderEntriesAndDeletesTheFilesWhollyBelowIt) {
  TempDir dir;
  // A file's first timestamp is not its predecessor's last plus one when the clock's second
  // ticks over between them, so each file's first entry is recorded as it is written.
  std::vector<Timestamp> file_starts;
  {
    auto engine = OpenEngine(dir.path());
    for (int file = 0; file < 8; ++file) {
      for (int id = file * 20; id < (file + 1) * 20; ++id) {
        InsertOne(*engine, 1, DocWithIntId(id, std::string(2000, static_cast<char>('a' + file))));
        if (id == file * 20) file_starts.push_back(engine->oplog().LatestTimestamp());
      }
      ASSERT_TRUE(engine->Flush().ok());
    }
    WaitForCompactions(*engine);
    const std::uint64_t before = OplogFileBytes(*engine);
    ASSERT_GT(before, 0u);

    const Timestamp first_kept = file_starts[6];
    ASSERT_TRUE(engine->oplog().TrimBefore(first_kept).ok());
    EXPECT_LT(OplogFileBytes(*engine), before / 2);

    EXPECT_EQ(engine->oplog().OldestTimestamp().value(), first_kept);
    auto forward = engine->oplog().Scan(0);
    ASSERT_TRUE(forward->Valid());
    EXPECT_EQ(forward->ts(), first_kept);
    int backward_count = 0;
    Timestamp last_seen = 0;
    for (auto backward = engine->oplog().ScanBackward(engine->oplog().LatestTimestamp());
         backward->Valid(); backward->Next()) {
      ++backward_count;
      last_seen = backward->ts();
    }
    EXPECT_EQ(backward_count, 40);
    EXPECT_EQ(last_seen, first_kept);
  }
  auto reopened = OpenEngine(dir.path());
  EXPECT_EQ(reopened->oplog().OldestTimestamp().value(), file_starts[6]);
  int count = 0;
  for (auto cursor = reopened->oplog().Scan(0); cursor->Valid(); cursor->Next()) ++count;
  EXPECT_EQ(count, 40);
  EXPECT_EQ(reopened->records().Count(1), 160);
}

}  // namespace
}  // namespace quarry::storage
