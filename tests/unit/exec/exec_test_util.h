// Helpers for exec/ tests: an engine and catalog over a temporary directory, a collection of
// numbered documents, and documents from JSON.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "bson/builder.h"
#include "bson/json.h"
#include "catalog/catalog.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::exec::testing {

inline bson::Document Doc(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << json;
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// An engine and catalog over a fresh directory, removed at destruction, with one collection
// db.c.
class ExecFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = (std::filesystem::temp_directory_path() /
            ("quarry_exec_test_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter.fetch_add(1))))
               .string();
    std::filesystem::remove_all(dir_);
    storage::EngineOptions options;
    options.dbpath = dir_;
    options.block_cache_bytes = 8 << 20;
    options.write_buffer_bytes = 8 << 20;
    auto engine = storage::Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    auto catalog = catalog::Catalog::Load(engine_.get());
    ASSERT_TRUE(catalog.ok());
    catalog_ = std::move(catalog).value();
    auto collection = EnsureCollection(*catalog_, "db", "c", {});
    ASSERT_TRUE(collection.ok());
    collection_ = std::move(collection).value();
    ctx_ = ExecContext{.engine = engine_.get(), .catalog = catalog_.get(), .interrupt = nullptr};
  }

  void TearDown() override {
    catalog_.reset();
    if (engine_ != nullptr) (void)engine_->Close();
    engine_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void Insert(const bson::Document& doc) {
    storage::WriteUnit unit;
    unit.Insert(collection_.ref(), doc);
    auto result = engine_->pipeline().Commit(std::move(unit), {});
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  // Documents {_id: i, a: i % mod} for i in [0, count).
  void InsertNumbered(int count, int mod = 1000000) {
    storage::WriteUnit unit;
    for (int i = 0; i < count; ++i) {
      bson::DocumentBuilder b;
      b.AppendInt32("_id", i).AppendInt32("a", i % mod);
      unit.Insert(collection_.ref(), std::move(b).Finish());
    }
    auto result = engine_->pipeline().Commit(std::move(unit), {});
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  Committer Commit() {
    storage::Engine* engine = engine_.get();
    return [engine](storage::WriteUnit unit, bool ordered) {
      return engine->pipeline().Commit(std::move(unit), {.ordered = ordered});
    };
  }

  std::string dir_;
  std::unique_ptr<storage::Engine> engine_;
  std::unique_ptr<catalog::Catalog> catalog_;
  Collection collection_;
  ExecContext ctx_;
};

}  // namespace quarry::exec::testing
