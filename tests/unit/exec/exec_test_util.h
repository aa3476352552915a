// Helpers for exec/ tests: an engine and catalog over a temporary directory, a collection of
// numbered documents, documents and filters from JSON, and writes that race the code under test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/json.h"
#include "catalog/catalog.h"
#include "exec/collection.h"
#include "exec/exec_context.h"
#include "exec/index_build.h"
#include "exec/index_maintenance.h"
#include "exec/planner.h"
#include "query/match/matcher.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"

namespace quarry::exec::testing {

inline bson::Document Doc(std::string_view json) {
  StatusWith<bson::Document> doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << json;
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// The document or array `value` holds; {} (failing the test) when it holds neither, so that a
// missing reply field fails an expectation instead of the test binary.
inline bson::DocumentView DocumentIn(bson::ValueView value) {
  const bool holds = value.type() == bson::Type::kDocument || value.type() == bson::Type::kArray;
  EXPECT_TRUE(holds) << (value.exists() ? value.ToJson() : "absent") << " is no document";
  return holds ? value.Document() : bson::DocumentView();
}

// The string `value` holds; "" (failing the test) when it holds none.
inline std::string_view StringIn(bson::ValueView value) {
  const bool holds = value.type() == bson::Type::kString;
  EXPECT_TRUE(holds) << (value.exists() ? value.ToJson() : "absent") << " is no string";
  return holds ? value.String() : std::string_view();
}

inline query::Matcher Filter(std::string_view json) {
  StatusWith<query::Matcher> matcher = query::Matcher::Parse(Doc(json));
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString() << " in " << json;
  return matcher.ok() ? std::move(matcher).value()
                      : query::Matcher::Parse(bson::DocumentView()).value();
}

// `doc` with its int field `field` one higher (1 when missing): a change whose result shows
// how many times it was applied, and to which version.
inline bson::Document Bumped(bson::DocumentView doc, std::string_view field = "bumps") {
  bson::DocumentBuilder b;
  std::int64_t bumps = 0;
  for (const bson::Element& e : doc) {
    if (e.key == field) {
      bumps = e.value.AsInt64();
    } else {
      b.Append(e.key, e.value);
    }
  }
  b.AppendInt64(field, bumps + 1);
  return std::move(b).Finish();
}

// `doc` with field `field` set to the int `value`.
inline bson::Document With(bson::DocumentView doc, std::string_view field, int value) {
  bson::DocumentBuilder b;
  for (const bson::Element& e : doc) {
    if (e.key != field) b.Append(e.key, e.value);
  }
  b.AppendInt32(field, value);
  return std::move(b).Finish();
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
    OpenEngine();
  }

  // Opens the engine over dir_, its catalog and the collection db.c (created if missing).
  void OpenEngine() {
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
    auto result = CommitNow(std::move(unit));
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
    auto result = CommitNow(std::move(unit));
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  // Replaces `before` (as stored) by `after` in a commit of its own, as another client would.
  void ReplaceNow(bson::DocumentView before, bson::DocumentView after) {
    storage::WriteUnit unit;
    unit.Update(collection_.ref(), before, after, storage::UpdateKind::kReplace);
    auto result = CommitNow(std::move(unit));
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  void DeleteNow(bson::DocumentView stored) {
    storage::WriteUnit unit;
    unit.Delete(collection_.ref(), stored);
    auto result = CommitNow(std::move(unit));
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  // The stored document with _id `id`, or nullopt.
  std::optional<bson::Document> Stored(int id) const {
    bson::DocumentBuilder b;
    b.AppendInt32("_id", id);
    bson::Document key = std::move(b).Finish();
    auto doc = engine_->records().FindById(collection_.id, key.Get("_id"));
    EXPECT_TRUE(doc.ok()) << doc.status().ToString();
    return doc.ok() ? std::move(doc).value() : std::nullopt;
  }

  // Every stored document, in _id order.
  std::vector<bson::Document> StoredDocuments() const {
    std::vector<bson::Document> docs;
    auto cursor = engine_->records().Scan(collection_.id);
    for (; cursor->Valid(); cursor->Next())
      docs.push_back(bson::Document::Copy(cursor->document()));
    EXPECT_TRUE(cursor->status().ok());
    return docs;
  }

  // The _ids of the stored documents `filter` matches (as JSON), in _id order: what a scan of
  // every record finds.
  std::vector<std::string> ReferenceIds(std::string_view filter) const {
    query::Matcher matcher = Filter(filter);
    std::vector<std::string> ids;
    for (const bson::Document& doc : StoredDocuments()) {
      if (matcher.Matches(doc)) ids.push_back(doc.Get("_id").ToJson());
    }
    return ids;
  }

  // Commits as commands do: with the keys of the collection's secondary indexes.
  StatusWith<storage::CommitResult> CommitNow(storage::WriteUnit unit, bool ordered = true) {
    return CommitMaintainingIndexes(*catalog_, engine_->pipeline(), std::move(unit),
                                    {.ordered = ordered});
  }

  // Creates index `spec` as createIndexes does: listed, built from the records, then ready.
  // Re-reads the collection.
  void AddIndexSpec(std::string_view spec) {
    bson::Document index = Doc(spec);
    Status listed = catalog_->ModifyCollection(
        "db", "c",
        [&index](catalog::CollectionInfo* info) {
          catalog::IndexInfo& added = info->indexes.emplace_back();
          added.spec = index;
          added.ready = false;
          return Status::OK();
        },
        bson::DocumentView());
    ASSERT_TRUE(listed.ok()) << listed.ToString();
    std::shared_ptr<const catalog::CollectionInfo> info = catalog_->Find("db", "c");
    const storage::IndexId id = info->indexes.back().id;
    Status built = BuildIndexes(ctx_, *info, {id});
    ASSERT_TRUE(built.ok()) << built.ToString();
    Status ready = catalog_->ModifyCollection(
        "db", "c",
        [](catalog::CollectionInfo* info) {
          info->indexes.back().ready = true;
          return Status::OK();
        },
        Doc(R"({"createIndexes": "c"})"));
    ASSERT_TRUE(ready.ok()) << ready.ToString();
    std::optional<Collection> reread = LookupCollection(*catalog_, "db", "c");
    ASSERT_TRUE(reread.has_value());
    collection_ = std::move(*reread);
  }

  // The plan PlanQuery makes for a find of `filter` sorted by `sort`, limited to `limit` (0:
  // none). The filter and sort stay with the fixture until the next call.
  std::unique_ptr<PlanStage> PlanFind(std::string_view filter, std::string_view sort = "{}",
                                      std::int64_t limit = 0) {
    planned_filter_ = Doc(filter);
    planned_sort_ = Doc(sort);
    StatusWith<QuerySpec> spec = QuerySpec::Parse(planned_filter_, {}, {}, planned_sort_, 0, limit);
    EXPECT_TRUE(spec.ok()) << spec.status().ToString();
    StatusWith<std::unique_ptr<PlanStage>> plan =
        PlanQuery(ctx_, collection_, std::move(spec).value());
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return std::move(plan).value();
  }

  Committer Commit() {
    return [this](storage::WriteUnit unit, bool ordered) {
      return CommitNow(std::move(unit), ordered);
    };
  }

  std::string dir_;
  std::unique_ptr<storage::Engine> engine_;
  std::unique_ptr<catalog::Catalog> catalog_;
  Collection collection_;
  ExecContext ctx_;
  bson::Document planned_filter_;
  bson::Document planned_sort_;
};

// Calls `each` with every result of `plan`, saving and restoring the plan between any two, as a
// cursor does between batches.
template <typename Each>
void ForEachAcrossSaves(PlanStage& plan, Each each) {
  PlanResult result;
  while (true) {
    EXPECT_TRUE(plan.Restore().ok());
    StatusWith<bool> more = plan.Next(&result);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !more.value()) break;
    each(result);
    plan.Save();
  }
}

// The plan's explain with its statistics.
inline bson::Document ExplainOf(const PlanStage& root) {
  bson::DocumentBuilder b;
  root.Explain(&b);
  return std::move(b).Finish();
}

}  // namespace quarry::exec::testing
