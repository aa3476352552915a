// The catalog: create, drop, rename, dropDatabase, persistence, oplog entries, concurrency.
#include "catalog/catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "bson/builder.h"

namespace quarry::catalog {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  CatalogTest() {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("quarry_catalog_test_" + std::to_string(::getpid()) + "_" +
              std::to_string(counter.fetch_add(1))))
                .string();
    std::filesystem::remove_all(path_);
  }
  ~CatalogTest() override {
    catalog_.reset();
    engine_.reset();
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  void SetUp() override { Open(); }

  void Open() {
    storage::EngineOptions options;
    options.dbpath = path_;
    options.block_cache_bytes = 8 << 20;
    options.write_buffer_bytes = 8 << 20;
    auto engine = storage::Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    auto catalog = Catalog::Load(engine_.get());
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
  }

  void Reopen() {
    catalog_.reset();
    engine_.reset();
    Open();
  }

  std::shared_ptr<const CollectionInfo> Create(std::string_view db, std::string_view coll) {
    auto created = catalog_->CreateCollection(db, coll);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? created.value() : nullptr;
  }

  void InsertDocs(const CollectionInfo& info, int n) {
    storage::WriteUnit unit;
    const std::string ns = info.ns();
    const storage::CollectionRef ref{.id = info.id, .ns = ns, .uuid = info.uuid.view()};
    for (int i = 0; i < n; ++i) {
      bson::DocumentBuilder doc;
      doc.AppendInt32("_id", i);
      unit.Insert(ref, std::move(doc).Finish());
    }
    auto result = engine_->pipeline().Commit(std::move(unit), storage::CommitOptions{});
    ASSERT_TRUE(result.ok() && result.value().errors.empty());
  }

  // The `o` documents of every "c" oplog entry, in order.
  std::vector<bson::Document> CommandEntries() {
    std::vector<bson::Document> out;
    for (auto cursor = engine_->oplog().Scan(0); cursor->Valid(); cursor->Next()) {
      bson::DocumentView entry = cursor->entry();
      if (entry.Get("op").String() == "c") out.push_back(bson::Document::Copy(entry));
    }
    return out;
  }

  std::string path_;
  std::unique_ptr<storage::Engine> engine_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(CatalogTest, CreatedCollectionIsFoundWithItsIdIndex) {
  auto info = Create("shop", "orders");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->ns(), "shop.orders");
  EXPECT_GT(info->id, 0u);
  EXPECT_EQ(info->uuid.bytes[6] >> 4, 4);  // version 4
  ASSERT_EQ(info->indexes.size(), 1u);
  EXPECT_EQ(info->indexes[0].spec.Get("name").String(), "_id_");
  EXPECT_EQ(info->indexes[0].spec.Get("key").Document().Get("_id").Int32(), 1);
  EXPECT_EQ(catalog_->Find("shop", "orders"), info);
  EXPECT_EQ(catalog_->Find("shop", "other"), nullptr);
  EXPECT_EQ(catalog_->Find("other", "orders"), nullptr);
}

TEST_F(CatalogTest, DefaultCollationGoesOnTheIdIndexWhichThenKeepsKeys) {
  bson::DocumentBuilder options;
  options.OpenDocument("collation").AppendString("locale", "en").AppendInt32("strength", 2);
  options.Close();
  auto created = catalog_->CreateCollection("shop", "people", std::move(options).Finish(), {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const IndexInfo& id_index = created.value()->indexes.front();
  EXPECT_EQ(id_index.spec.Get("collation").Document().Get("locale").String(), "en");
  EXPECT_NE(id_index.id, 0u);  // its keys enforce _id uniqueness under the collation
  Reopen();
  auto found = catalog_->Find("shop", "people");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->indexes.front().id, id_index.id);
  EXPECT_EQ(Create("shop", "plain")->indexes.front().id, 0u);
  EXPECT_FALSE(catalog_->Find("shop", "plain")->indexes.front().spec.view().Has("collation"));
}

TEST_F(CatalogTest, CreatingAnExistingCollectionFails) {
  Create("shop", "orders");
  auto again = catalog_->CreateCollection("shop", "orders");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kNamespaceExists);
}

TEST_F(CatalogTest, CreatingWithAnInvalidNameFails) {
  EXPECT_EQ(catalog_->CreateCollection("bad db", "c").status().code(),
            ErrorCode::kInvalidNamespace);
  EXPECT_EQ(catalog_->CreateCollection("db", "a$b").status().code(), ErrorCode::kInvalidNamespace);
  EXPECT_EQ(catalog_->EnsureCollection("db", "").status().code(), ErrorCode::kInvalidNamespace);
  EXPECT_EQ(catalog_->CreateCollection("db", "system.js").status().code(),
            ErrorCode::kInvalidNamespace);
  EXPECT_TRUE(catalog_->CreateCollection("db", "system.js", {}, {.allow_system_names = true}).ok());
  EXPECT_TRUE(catalog_->DatabaseNames() == std::vector<std::string>{"db"});
}

TEST_F(CatalogTest, CreateIsLoggedAsACommandEntry) {
  bson::DocumentBuilder options;
  options.AppendBool("capped", true);
  options.AppendInt32("size", 4096);
  auto created = catalog_->CreateCollection("shop", "log", std::move(options).Finish());
  ASSERT_TRUE(created.ok());
  auto entries = CommandEntries();
  ASSERT_EQ(entries.size(), 1u);
  bson::DocumentView entry = entries[0];
  EXPECT_EQ(entry.Get("ns").String(), "shop.$cmd");
  EXPECT_EQ(entry.Get("ui").Binary().subtype, 4);
  EXPECT_EQ(entry.Get("ui").Binary().data, created.value()->uuid.view());
  bson::DocumentView o = entry.Get("o").Document();
  EXPECT_EQ(o.Get("create").String(), "log");
  EXPECT_TRUE(o.Get("capped").Bool());
  EXPECT_EQ(created.value()->options.Get("size").Int32(), 4096);
}

TEST_F(CatalogTest, CollectionsSurviveReopen) {
  bson::DocumentBuilder options;
  options.AppendBool("capped", true);
  auto a = catalog_->CreateCollection("db1", "a", std::move(options).Finish()).value();
  auto b = Create("db2", "b");
  Reopen();
  auto a2 = catalog_->Find("db1", "a");
  auto b2 = catalog_->Find("db2", "b");
  ASSERT_NE(a2, nullptr);
  ASSERT_NE(b2, nullptr);
  EXPECT_EQ(a2->uuid, a->uuid);
  EXPECT_EQ(a2->id, a->id);
  EXPECT_TRUE(a2->options.Get("capped").Bool());
  EXPECT_EQ(a2->created_ms, a->created_ms);
  EXPECT_EQ(b2->id, b->id);
  EXPECT_EQ(b2->indexes.size(), 1u);
}

TEST_F(CatalogTest, IdsAreNeverReusedEvenAcrossReopen) {
  std::set<storage::CollectionId> ids;
  ids.insert(Create("db", "a")->id);
  ASSERT_TRUE(catalog_->DropCollection("db", "a").ok());
  ids.insert(Create("db", "a")->id);
  ASSERT_TRUE(catalog_->DropCollection("db", "a").ok());
  Reopen();
  auto again = Create("db", "a");
  EXPECT_GT(again->id, *ids.rbegin());
  ids.insert(again->id);
  EXPECT_EQ(ids.size(), 3u);
}

TEST_F(CatalogTest, DropRemovesTheCollectionAndItsRecords) {
  auto info = Create("db", "c");
  InsertDocs(*info, 25);
  EXPECT_EQ(engine_->records().Count(info->id), 25);
  auto dropped = catalog_->DropCollection("db", "c");
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped.value(), 1);  // nIndexesWas
  EXPECT_EQ(catalog_->Find("db", "c"), nullptr);
  EXPECT_EQ(engine_->records().Count(info->id), 0);
  EXPECT_FALSE(engine_->records().Scan(info->id)->Valid());
  EXPECT_TRUE(catalog_->DatabaseNames().empty());
  auto entries = CommandEntries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].Get("o").Document().Get("drop").String(), "c");
  Reopen();
  EXPECT_EQ(catalog_->Find("db", "c"), nullptr);
}

TEST_F(CatalogTest, DroppingAMissingCollectionIsNamespaceNotFound) {
  EXPECT_EQ(catalog_->DropCollection("db", "nope").status().code(), ErrorCode::kNamespaceNotFound);
}

TEST_F(CatalogTest, DropDatabaseDropsEveryCollectionThenLogsDropDatabase) {
  auto a = Create("gone", "a");
  auto b = Create("gone", "b");
  auto kept = Create("kept", "c");
  InsertDocs(*a, 3);
  InsertDocs(*kept, 2);
  auto dropped = catalog_->DropDatabase("gone");
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped.value(), 2);
  EXPECT_TRUE(catalog_->ListCollections("gone").empty());
  EXPECT_EQ(engine_->records().Count(a->id), 0);
  EXPECT_EQ(engine_->records().Count(kept->id), 2);
  auto entries = CommandEntries();
  ASSERT_EQ(entries.size(), 6u);  // 3 creates, 2 drops, dropDatabase
  EXPECT_EQ(entries[3].Get("o").Document().Get("drop").String(), "a");
  EXPECT_EQ(entries[4].Get("o").Document().Get("drop").String(), "b");
  EXPECT_EQ(entries[5].Get("ns").String(), "gone.$cmd");
  EXPECT_EQ(entries[5].Get("o").Document().Get("dropDatabase").Int32(), 1);
  EXPECT_EQ(catalog_->DatabaseNames(), std::vector<std::string>{"kept"});
  Reopen();
  EXPECT_EQ(catalog_->DatabaseNames(), std::vector<std::string>{"kept"});
}

TEST_F(CatalogTest, DroppingAMissingDatabaseIsNotAnError) {
  auto dropped = catalog_->DropDatabase("nothing");
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped.value(), 0);
  EXPECT_TRUE(CommandEntries().empty());
}

TEST_F(CatalogTest, RenameKeepsRecordsUuidAndId) {
  auto info = Create("db", "old");
  InsertDocs(*info, 10);
  ASSERT_TRUE(catalog_->RenameCollection("db", "old", "db", "new", false).ok());
  EXPECT_EQ(catalog_->Find("db", "old"), nullptr);
  auto renamed = catalog_->Find("db", "new");
  ASSERT_NE(renamed, nullptr);
  EXPECT_EQ(renamed->uuid, info->uuid);
  EXPECT_EQ(renamed->id, info->id);
  EXPECT_EQ(engine_->records().Count(renamed->id), 10);
  auto entries = CommandEntries();
  ASSERT_EQ(entries.size(), 2u);
  bson::DocumentView o = entries[1].Get("o").Document();
  EXPECT_EQ(o.Get("renameCollection").String(), "db.old");
  EXPECT_EQ(o.Get("to").String(), "db.new");
  EXPECT_FALSE(o.Get("dropTarget").Bool());
  Reopen();
  EXPECT_EQ(catalog_->Find("db", "old"), nullptr);
  ASSERT_NE(catalog_->Find("db", "new"), nullptr);
  EXPECT_EQ(catalog_->Find("db", "new")->id, info->id);
}

TEST_F(CatalogTest, RenameOntoAnExistingCollectionNeedsDropTarget) {
  auto source = Create("db", "a");
  auto target = Create("db", "b");
  InsertDocs(*target, 5);
  Status refused = catalog_->RenameCollection("db", "a", "db", "b", false);
  EXPECT_EQ(refused.code(), ErrorCode::kNamespaceExists);
  ASSERT_TRUE(catalog_->RenameCollection("db", "a", "db", "b", true).ok());
  EXPECT_EQ(catalog_->Find("db", "b")->uuid, source->uuid);
  EXPECT_EQ(engine_->records().Count(target->id), 0);
  auto entries = CommandEntries();
  bson::DocumentView o = entries.back().Get("o").Document();
  EXPECT_EQ(o.Get("dropTarget").Binary().data, target->uuid.view());
}

TEST_F(CatalogTest, RenameErrorsMatchMongod) {
  Create("db", "a");
  EXPECT_EQ(catalog_->RenameCollection("db", "missing", "db", "x", false).code(),
            ErrorCode::kNamespaceNotFound);
  EXPECT_EQ(catalog_->RenameCollection("db", "a", "db", "a", false).code(),
            ErrorCode::kIllegalOperation);
  EXPECT_EQ(catalog_->RenameCollection("db", "a", "db", "bad$name", false).code(),
            ErrorCode::kInvalidNamespace);
}

TEST_F(CatalogTest, RenameAcrossDatabasesMovesTheCollection) {
  auto info = Create("src", "c");
  InsertDocs(*info, 3);
  ASSERT_TRUE(catalog_->RenameCollection("src", "c", "dst", "c2", false).ok());
  EXPECT_TRUE(catalog_->ListCollections("src").empty());
  EXPECT_EQ(catalog_->Find("dst", "c2")->id, info->id);
  EXPECT_EQ(catalog_->DatabaseNames(), std::vector<std::string>{"dst"});
  EXPECT_EQ(CommandEntries().back().Get("ns").String(), "src.$cmd");
}

TEST_F(CatalogTest, EnsureCollectionCreatesOnceUnderConcurrentCallers) {
  constexpr int kThreads = 8;
  std::vector<storage::CollectionId> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto info = catalog_->EnsureCollection("db", "implicit");
      ASSERT_TRUE(info.ok());
      ids[t] = info.value()->id;
    });
  }
  for (auto& thread : threads) thread.join();
  for (storage::CollectionId id : ids) EXPECT_EQ(id, ids[0]);
  EXPECT_EQ(CommandEntries().size(), 1u);
  auto existing = catalog_->EnsureCollection("db", "implicit");
  ASSERT_TRUE(existing.ok());
  EXPECT_EQ(existing.value()->id, ids[0]);
}

TEST_F(CatalogTest, ListingsAreSortedAndReportSizes) {
  auto z = Create("zeta", "z");
  Create("alpha", "b");
  Create("alpha", "a");
  InsertDocs(*z, 100);
  auto collections = catalog_->ListCollections("alpha");
  ASSERT_EQ(collections.size(), 2u);
  EXPECT_EQ(collections[0]->name, "a");
  EXPECT_EQ(collections[1]->name, "b");
  auto databases = catalog_->ListDatabases();
  ASSERT_EQ(databases.size(), 2u);
  EXPECT_EQ(databases[0].name, "alpha");
  EXPECT_TRUE(databases[0].empty);
  EXPECT_EQ(databases[1].name, "zeta");
  EXPECT_FALSE(databases[1].empty);
  EXPECT_GT(databases[1].size_on_disk, 0u);
}

TEST_F(CatalogTest, UuidsAreUniqueAndFormatted) {
  Uuid a = Uuid::Random();
  Uuid b = Uuid::Random();
  EXPECT_NE(a, b);
  std::string text = a.ToString();
  ASSERT_EQ(text.size(), 36u);
  EXPECT_EQ(text[8], '-');
  EXPECT_EQ(text[14], '4');
}

}  // namespace
}  // namespace quarry::catalog
