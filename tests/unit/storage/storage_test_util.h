// Helpers for storage tests: a temporary dbpath, documents and oplog entries.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "bson/builder.h"
#include "bson/value.h"
#include "storage/engine.h"
#include "storage/key_encoding.h"

namespace quarry::storage::testing {

// A fresh directory under the system temp dir, removed at destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("quarry_storage_test_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter.fetch_add(1))))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::unique_ptr<Engine> OpenEngine(
    const std::string& path,
    std::chrono::milliseconds sync_interval = std::chrono::milliseconds(100),
    std::chrono::seconds snapshot_history_window = EngineOptions().snapshot_history_window) {
  EngineOptions options;
  options.dbpath = path;
  options.block_cache_bytes = 8 << 20;
  options.write_buffer_bytes = 8 << 20;
  options.wal_sync_interval = sync_interval;
  options.snapshot_history_window = snapshot_history_window;
  auto engine = Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

inline bson::Document DocWithIntId(std::int32_t id, std::string_view payload = "x") {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", id);
  b.AppendString("payload", payload);
  return std::move(b).Finish();
}

// A document of about `bytes` bytes (from kCompressRecordsFrom up, stored compressed) that
// compresses as real records do: repeated field names and a few distinct values; `seed` varies
// its values, not its size.
inline bson::Document LargeDocument(std::int32_t id, std::size_t bytes, int seed = 0) {
  bson::DocumentBuilder b;
  b.AppendInt32("_id", id);
  b.OpenArray("items");
  for (std::size_t i = 0; b.size() < bytes; ++i) {
    b.OpenDocument(std::to_string(i))
        .AppendInt64("n", static_cast<std::int64_t>(i * 7919 + seed))
        .AppendString("name", "item " + std::to_string((i + seed) % 97))
        .Close();
  }
  b.Close();
  return std::move(b).Finish();
}

// How record changes to `collection` are logged in these tests: as "db.c" (or `ns`), with a
// fixed UUID.
// {_id: id, a: a, b: b}: the document of the index tests, indexed by {a: 1} and unique {b: 1}.
inline bson::Document DocWithAB(std::int32_t id, std::int32_t a, std::int32_t b) {
  bson::DocumentBuilder builder;
  builder.AppendInt32("_id", id);
  builder.AppendInt32("a", a);
  builder.AppendInt32("b", b);
  return std::move(builder).Finish();
}

// An int32 encoded as an index key field (and, for an int32 _id, as the record's id key).
inline std::string Int32Key(std::int32_t value) {
  bson::DocumentBuilder builder;
  builder.AppendInt32("v", value);
  bson::Document doc = std::move(builder).Finish();
  return EncodeIndexKey(doc.Get("v"));
}

inline CollectionRef Target(CollectionId collection, std::string_view ns = "db.c",
                            bool pre_and_post_images = false) {
  static const std::string kUuid(16, '\x42');
  return {.id = collection, .ns = ns, .uuid = kUuid, .pre_and_post_images = pre_and_post_images};
}

// Inserts one document into `collection` and expects success.
inline void InsertOne(Engine& engine, CollectionId collection, const bson::Document& doc) {
  WriteUnit unit;
  unit.Insert(Target(collection), doc);
  auto result = engine.pipeline().Commit(std::move(unit), CommitOptions{});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result.value().errors.empty()) << result.value().errors[0].status.ToString();
}

// Runs `work` on an engine over a fresh directory in a process that is then killed by SIGKILL
// (no close, no flush, no background sync: unflushed memtables are lost as in a crash), and
// returns the directory for the test to reopen. Returns nullptr in the killed process's own
// run of the test, which must then return at once: the threadsafe death test re-runs this
// binary up to EXPECT_EXIT, and the child finds the directory through the environment.
inline std::unique_ptr<TempDir> RunThenKill(const std::function<void(Engine&)>& work) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  constexpr const char* kDirVariable = "QUARRY_KILL_TEST_DIR";
  std::unique_ptr<TempDir> dir;
  std::string path;
  if (const char* inherited = std::getenv(kDirVariable)) {
    path = inherited;
  } else {
    dir = std::make_unique<TempDir>();
    path = dir->path();
    ::setenv(kDirVariable, path.c_str(), 1);
  }
  EXPECT_EXIT(
      {
        auto engine = OpenEngine(path, std::chrono::milliseconds(0));
        work(*engine);
        std::raise(SIGKILL);
      },
      ::testing::KilledBySignal(SIGKILL), "");
  ::unsetenv(kDirVariable);
  return dir;
}

}  // namespace quarry::storage::testing
