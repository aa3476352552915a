// Storage's memtable skip list, driven through a real RocksDB database whose memtable never
// flushes, against an ordered map of what was written.
#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/skip_list_memtable_internal.h"
#include "storage_test_util.h"

namespace quarry::storage::internal {
namespace {

// Hints per first byte, as the index family keeps them per index.
class FirstByteHint final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "FirstByteHint"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override { return {key.data(), 1}; }
  bool InDomain(const rocksdb::Slice& key) const override { return !key.empty(); }
};

class SkipListMemtableTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 256 << 20;  // everything stays in the memtable
    options.allow_concurrent_memtable_write = false;
    options.memtable_factory = NewSkipListMemtableFactory();
    options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
    if (GetParam()) {
      options.memtable_insert_with_hint_prefix_extractor = std::make_shared<FirstByteHint>();
    }
    rocksdb::DB* db = nullptr;
    rocksdb::Status opened = rocksdb::DB::Open(options, dir_.path(), &db);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    db_.reset(db);
  }

  // A key of 1–12 bytes over a small alphabet, so that writes often hit keys already there.
  std::string RandomKey() {
    std::string key(1 + random_() % 12, '\0');
    for (char& c : key) c = static_cast<char>('a' + random_() % 4);
    return key;
  }

  // Writes `batches` batches of random puts and deletes, sorted by key within each batch half
  // the time (as commits put index keys), into the database and into `expected_`.
  void WriteRandomBatches(int batches) {
    for (int batch_idx = 0; batch_idx < batches; ++batch_idx) {
      std::vector<std::string> keys(1 + random_() % 50);
      for (std::string& key : keys) key = RandomKey();
      if (random_() % 2 == 0) std::sort(keys.begin(), keys.end());
      rocksdb::WriteBatch batch;
      for (const std::string& key : keys) {
        if (random_() % 5 == 0) {
          ASSERT_TRUE(batch.Delete(key).ok());
          expected_.erase(key);
        } else {
          std::string value = "v" + std::to_string(write_count_++);
          ASSERT_TRUE(batch.Put(key, value).ok());
          expected_[key] = value;
        }
      }
      ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &batch).ok());
    }
  }

  std::vector<std::pair<std::string, std::string>> ScanForward(const rocksdb::Snapshot* at) {
    rocksdb::ReadOptions read;
    read.snapshot = at;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
    std::vector<std::pair<std::string, std::string>> seen;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen.emplace_back(it->key().ToString(), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok());
    return seen;
  }

  testing::TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::mt19937 random_{12345};
  std::map<std::string, std::string> expected_;
  int write_count_ = 0;
};

TEST_P(SkipListMemtableTest, ForwardScanMatchesTheNewestWrites) {
  WriteRandomBatches(400);
  std::vector<std::pair<std::string, std::string>> expected(expected_.begin(), expected_.end());
  EXPECT_EQ(ScanForward(nullptr), expected);
}

TEST_P(SkipListMemtableTest, BackwardScanMatchesTheNewestWrites) {
  WriteRandomBatches(400);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  std::vector<std::pair<std::string, std::string>> seen;
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    seen.emplace_back(it->key().ToString(), it->value().ToString());
  }
  std::vector<std::pair<std::string, std::string>> expected(expected_.rbegin(), expected_.rend());
  EXPECT_EQ(seen, expected);
}

TEST_P(SkipListMemtableTest, GetsSeeTheNewestValueOrNone) {
  WriteRandomBatches(400);
  for (int probe = 0; probe < 2000; ++probe) {
    std::string key = RandomKey();
    std::string value;
    rocksdb::Status read = db_->Get(rocksdb::ReadOptions(), key, &value);
    auto it = expected_.find(key);
    if (it == expected_.end()) {
      EXPECT_TRUE(read.IsNotFound()) << key;
    } else {
      ASSERT_TRUE(read.ok()) << key << ": " << read.ToString();
      EXPECT_EQ(value, it->second) << key;
    }
  }
}

TEST_P(SkipListMemtableTest, SeeksLandOnTheNearestKeys) {
  WriteRandomBatches(400);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (int probe = 0; probe < 2000; ++probe) {
    std::string target = RandomKey();
    it->Seek(target);
    auto at_or_after = expected_.lower_bound(target);
    if (at_or_after == expected_.end()) {
      EXPECT_FALSE(it->Valid()) << target;
    } else {
      ASSERT_TRUE(it->Valid()) << target;
      EXPECT_EQ(it->key().ToString(), at_or_after->first) << target;
    }
    it->SeekForPrev(target);
    auto after = expected_.upper_bound(target);
    if (after == expected_.begin()) {
      EXPECT_FALSE(it->Valid()) << target;
    } else {
      ASSERT_TRUE(it->Valid()) << target;
      EXPECT_EQ(it->key().ToString(), std::prev(after)->first) << target;
    }
  }
}

TEST_P(SkipListMemtableTest, SnapshotsKeepTheirVersions) {
  WriteRandomBatches(200);
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  std::vector<std::pair<std::string, std::string>> before(expected_.begin(), expected_.end());
  WriteRandomBatches(200);
  EXPECT_EQ(ScanForward(snapshot), before);
  db_->ReleaseSnapshot(snapshot);
}

TEST_P(SkipListMemtableTest, ReadersBesideTheWriterSeeOrderedKeys) {
  std::atomic<bool> writing{true};
  std::atomic<int> bad_scans{0};
  std::atomic<int> scans{0};
  std::thread reader([&] {
    while (writing.load()) {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
      std::optional<std::string> last;
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        std::string key = it->key().ToString();
        if (last && !(*last < key)) ++bad_scans;
        last = std::move(key);
      }
      ++scans;
    }
  });
  WriteRandomBatches(3000);
  writing.store(false);
  reader.join();
  EXPECT_GT(scans.load(), 0);
  EXPECT_EQ(bad_scans.load(), 0);
  std::vector<std::pair<std::string, std::string>> expected(expected_.begin(), expected_.end());
  EXPECT_EQ(ScanForward(nullptr), expected);
}

TEST_P(SkipListMemtableTest, SizeEstimatesCountTheMemtable) {
  rocksdb::WriteBatch batch;
  for (int key_idx = 0; key_idx < 20000; ++key_idx) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%06d", key_idx);
    ASSERT_TRUE(batch.Put(key, std::string(100, 'v')).ok());
  }
  ASSERT_TRUE(db_->Write(rocksdb::WriteOptions(), &batch).ok());
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = false;
  auto size_of = [&](const char* start, const char* limit) {
    rocksdb::Range range(start, limit);
    std::uint64_t size = 0;
    EXPECT_TRUE(
        db_->GetApproximateSizes(options, db_->DefaultColumnFamily(), &range, 1, &size).ok());
    return size;
  };
  // 20,000 entries of ~120 bytes, counted from the nodes a search passes on the list's levels
  // (each step on a high level stands for many keys, so a part is only roughly estimated).
  const std::uint64_t all = size_of("k", "l");
  EXPECT_GT(all, 20000u * 120 / 2);
  EXPECT_LT(all, 20000u * 120 * 2);
  const std::uint64_t part = size_of("k000000", "k010000");
  EXPECT_GT(part, 0u);
  EXPECT_LE(part, all);
  EXPECT_EQ(size_of("a", "b"), 0u);
}

// A family ordered by another comparator keeps that order: the list calls the comparator
// instead of ordering bytes itself.
TEST(SkipListMemtableOrderTest, KeepsACustomComparatorsOrder) {
  testing::TempDir dir;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.allow_concurrent_memtable_write = false;
  options.memtable_factory = NewSkipListMemtableFactory();
  options.comparator = rocksdb::ReverseBytewiseComparator();
  options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  rocksdb::DB* opened = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir.path(), &opened).ok());
  std::unique_ptr<rocksdb::DB> db(opened);
  std::mt19937 random(7);
  std::set<std::string, std::greater<>> expected;
  rocksdb::WriteBatch batch;
  for (int key_idx = 0; key_idx < 2000; ++key_idx) {
    std::string key = std::to_string(random() % 100000);
    ASSERT_TRUE(batch.Put(key, "v").ok());
    expected.insert(key);
  }
  ASSERT_TRUE(db->Write(rocksdb::WriteOptions(), &batch).ok());
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.push_back(it->key().ToString());
  EXPECT_EQ(seen, std::vector<std::string>(expected.begin(), expected.end()));
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutHints, SkipListMemtableTest, ::testing::Bool());

}  // namespace
}  // namespace quarry::storage::internal
