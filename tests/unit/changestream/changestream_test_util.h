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

#include "bson/builder.h"
#include "bson/json.h"
#include "bson/value.h"
#include "storage/engine.h"
#include "storage/record_store.h"
#include "storage/write_unit.h"
#include "../storage/storage_test_util.h"

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
    const Collection& c = Coll(ns);
    bson::Document doc = Json(doc_json);
    bson::DocumentBuilder b;
    b.AppendString("op", "i");
    Namespace(ns, c, &b);
    b.AppendDocument("o", doc);
    bson::Document entry = std::move(b).Finish();
    storage::WriteUnit unit;
    unit.Insert(c.id, doc, entry);
    return Commit(std::move(unit));
  }

  // Replaces the stored document with `new_json` (same _id). `replace`: log r: true.
  // `images`: log images: <value> when set.
  storage::Timestamp Update(const std::string& ns, std::string_view new_json, bool replace = false,
                            std::optional<bool> images = std::nullopt) {
    const Collection& c = Coll(ns);
    bson::Document after = Json(new_json);
    auto before = engine_->records().FindById(c.id, after.Get("_id"));
    EXPECT_TRUE(before.ok() && before.value().has_value());
    bson::Document pre = *before.value();
    bson::DocumentBuilder b;
    b.AppendString("op", "u");
    Namespace(ns, c, &b);
    b.OpenDocument("o2").Append("_id", after.Get("_id")).Close();
    b.AppendDocument("o", after);
    b.AppendDocument("pre", pre);
    if (replace) b.AppendBool("r", true);
    if (images.has_value()) b.AppendBool("images", *images);
    bson::Document entry = std::move(b).Finish();
    storage::WriteUnit unit;
    unit.Replace(c.id, pre.bytes(), after, entry);
    return Commit(std::move(unit));
  }

  storage::Timestamp Delete(const std::string& ns, std::string_view id_json,
                            bool log_pre_image = false) {
    const Collection& c = Coll(ns);
    bson::Document id_doc = Json(id_json);  // {_id: ...}
    auto before = engine_->records().FindById(c.id, id_doc.Get("_id"));
    EXPECT_TRUE(before.ok() && before.value().has_value());
    bson::Document pre = *before.value();
    bson::DocumentBuilder b;
    b.AppendString("op", "d");
    Namespace(ns, c, &b);
    b.AppendDocument("o", id_doc);
    if (log_pre_image) b.AppendDocument("pre", pre);
    bson::Document entry = std::move(b).Finish();
    storage::WriteUnit unit;
    unit.Delete(c.id, pre.bytes(), entry);
    return Commit(std::move(unit));
  }

  // A DDL entry {op: "c", ns: "<db>.$cmd", ui?, o: <o_json>, o2?}.
  storage::Timestamp Command(const std::string& db, std::string_view o_json,
                             const std::string& uuid_of_ns = "", std::string_view o2_json = "") {
    bson::DocumentBuilder b;
    b.AppendString("op", "c");
    b.AppendString("ns", db + ".$cmd");
    storage::CollectionId id = 0;
    if (!uuid_of_ns.empty()) {
      const Collection& c = Coll(uuid_of_ns);
      b.AppendBinary("ui", 4, c.uuid);
      id = c.id;
    }
    b.AppendDocument("o", Json(o_json));
    if (!o2_json.empty()) b.AppendDocument("o2", Json(o2_json));
    bson::Document entry = std::move(b).Finish();
    storage::WriteUnit unit;
    unit.AppendOplog(id, entry);
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
  void Namespace(const std::string& ns, const Collection& c, bson::DocumentBuilder* b) {
    b->AppendString("ns", ns);
    b->AppendBinary("ui", 4, c.uuid);
  }

  storage::Engine* engine_;
  std::map<std::string, Collection> collections_;
  storage::CollectionId next_id_ = 1;
};

}  // namespace quarry::changestream::testing
