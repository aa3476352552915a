// Helpers for change-stream tests: a temporary engine, and a writer that commits records and
// oplog entries shaped as the write commands and the catalog write them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "../storage/storage_test_util.h"
#include "bson/builder.h"
#include "bson/json.h"
#include "bson/value.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"

namespace quarry::changestream::testing {

inline bson::Document Json(std::string_view json) {
  auto doc = bson::FromJson(json);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << json;
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

// A fresh directory under the system temp dir, removed at destruction.
using storage::testing::TempDir;

inline std::unique_ptr<storage::Engine> OpenEngine(const std::string& path) {
  storage::EngineOptions options;
  options.dbpath = path;
  options.block_cache_bytes = 8 << 20;
  options.write_buffer_bytes = 8 << 20;
  options.wal_sync_interval = std::chrono::milliseconds(0);
  auto engine = storage::Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

// A 16-byte UUID derived from a number, so tests can predict it.
inline std::string TestUuid(std::uint64_t n) {
  std::string uuid(16, '\0');
  for (int i = 0; i < 8; ++i) uuid[15 - i] = static_cast<char>((n >> (i * 8)) & 0xFF);
  uuid[0] = 0x42;
  return uuid;
}

// Commits writes the way the server's writers do: records plus their oplog entries, DDL entries
// on "<db>.$cmd". Collections get ids and UUIDs on first use.
class Writer {
 public:
  explicit Writer(storage::Engine* engine) : engine_(engine) {}

  struct Collection {
    storage::CollectionId id = 0;
    std::string uuid;
  };

  const Collection& Coll(const std::string& ns) {
    auto it = collections_.find(ns);
    if (it == collections_.end()) {
      Collection c{next_id_, TestUuid(next_id_)};
      ++next_id_;
      it = collections_.emplace(ns, c).first;
    }
    return it->second;
  }

  // Returns the entry's timestamp.
  storage::Timestamp Insert(const std::string& ns, std::string_view doc_json) {
    bson::Document doc = Json(doc_json);
    storage::WriteUnit unit;
    unit.Insert(Ref(ns), doc);
    return Commit(std::move(unit));
  }

  // Replaces the stored document with `new_json` (same _id). `replace`: a replacement
  // (r: true). `images`: the collection's changeStreamPreAndPostImages, as logged.
  storage::Timestamp Update(const std::string& ns, std::string_view new_json, bool replace = false,
                            bool images = false) {
    bson::Document after = Json(new_json);
    auto before = engine_->records().FindById(Coll(ns).id, after.Get("_id"));
    EXPECT_TRUE(before.ok() && before.value().has_value());
    bson::Document pre = *before.value();
    storage::WriteUnit unit;
    unit.Update(Ref(ns, images), pre, after,
                replace ? storage::UpdateKind::kReplace : storage::UpdateKind::kModify);
    return Commit(std::move(unit));
  }

  storage::Timestamp Delete(const std::string& ns, std::string_view id_json,
                            bool log_pre_image = false) {
    bson::Document id_doc = Json(id_json);  // {_id: ...}
    auto before = engine_->records().FindById(Coll(ns).id, id_doc.Get("_id"));
    EXPECT_TRUE(before.ok() && before.value().has_value());
    bson::Document pre = *before.value();
    storage::WriteUnit unit;
    unit.Delete(Ref(ns, log_pre_image), pre);
    return Commit(std::move(unit));
  }

  // A DDL entry {op: "c", ns: "<db>.$cmd", ui?, o: <o_json>}.
  storage::Timestamp Command(const std::string& db, std::string_view o_json,
                             const std::string& uuid_of_ns = "") {
    storage::CollectionId id = 0;
    std::string uuid;
    if (!uuid_of_ns.empty()) {
      id = Coll(uuid_of_ns).id;
      uuid = Coll(uuid_of_ns).uuid;
    }
    storage::WriteUnit unit;
    unit.LogCommand(id, db, uuid, Json(o_json));
    return Commit(std::move(unit));
  }

  storage::Timestamp Drop(const std::string& db, const std::string& coll) {
    return Command(db, "{\"drop\": \"" + coll + "\"}", db + "." + coll);
  }

  storage::Timestamp Commit(storage::WriteUnit unit) {
    auto result = engine_->pipeline().Commit(std::move(unit), storage::CommitOptions{});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok()) return 0;
    EXPECT_TRUE(result.value().errors.empty()) << result.value().errors[0].status.ToString();
    return result.value().last_timestamp;
  }

 private:
  storage::CollectionRef Ref(const std::string& ns, bool images = false) {
    const Collection& c = Coll(ns);
    return {.id = c.id, .ns = ns, .uuid = c.uuid, .pre_and_post_images = images};
  }

  storage::Engine* engine_;
  std::map<std::string, Collection> collections_;
  storage::CollectionId next_id_ = 1;
};

}  // namespace quarry::changestream::testing
