// CheckOplog: records that agree with their newest oplog change pass; a record missing after an
// insert, changed behind the oplog's back, or present after its delete is reported.
#include "exec/oplog_check.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/endian.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Bumped;
using testing::Doc;

class OplogCheckTest : public testing::ExecFixture {
 protected:
  OplogCheck Check(std::size_t max_memory_bytes = 1 << 20) {
    StatusWith<OplogCheck> check = CheckOplog(ctx_, collection_, max_memory_bytes);
    EXPECT_TRUE(check.ok()) << check.status().ToString();
    return check.ok() ? std::move(check).value() : OplogCheck();
  }

  // Closes the engine, changes the records' family as `edit` says, and opens it again: a
  // damage no write through the engine could make.
  void DamageRecords(const std::function<void(rocksdb::DB*, rocksdb::ColumnFamilyHandle*)>& edit) {
    catalog_.reset();
    ASSERT_TRUE(engine_->Close().ok());
    engine_.reset();
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir_, &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const std::string& name : names)
      families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), dir_, families, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "docs") edit(db.get(), handles[i]);
    }
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
    }
    ASSERT_TRUE(db->Close().ok());
    OpenEngine();
  }

  std::string RecordKey(int id) const {
    std::string key;
    AppendBigEndian64(collection_.id, &key);
    key += storage::EncodeIdKey(Doc(R"({"_id": )" + std::to_string(id) + "}").Get("_id"));
    return key;
  }

  // Ten documents; 3 updated, 5 deleted.
  void WriteHistory() {
    InsertNumbered(10);
    std::optional<bson::Document> three = Stored(3);
    ASSERT_TRUE(three.has_value());
    ReplaceNow(*three, Bumped(*three));
    std::optional<bson::Document> five = Stored(5);
    ASSERT_TRUE(five.has_value());
    DeleteNow(*five);
  }
};

TEST_F(OplogCheckTest, RecordsThatAgreeWithTheirNewestChangePass) {
  WriteHistory();
  OplogCheck check = Check();
  EXPECT_TRUE(check.errors.empty()) << check.errors.front();
  EXPECT_EQ(check.inconsistencies, 0);
  EXPECT_EQ(check.records_checked, 10);  // every record the oplog changed, the deleted one too
  EXPECT_GE(check.entries, 12);
  EXPECT_TRUE(check.warnings.empty());
}

TEST_F(OplogCheckTest, MissingChangedAndResurrectedRecordsAreReported) {
  WriteHistory();
  DamageRecords([&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* docs) {
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), docs, RecordKey(2)).ok());
    const bson::Document changed = Doc(R"({"_id": 3, "a": 999})");
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), docs, RecordKey(3), changed.view().bytes()).ok());
    const bson::Document back = Doc(R"({"_id": 5})");
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), docs, RecordKey(5), back.view().bytes()).ok());
  });
  OplogCheck check = Check();
  EXPECT_EQ(check.inconsistencies, 3);
  std::vector<std::string> errors = check.errors;
  std::sort(errors.begin(), errors.end());
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("_id 2 is missing"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("_id 3 differs from its last change"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("_id 5 exists after its delete"), std::string::npos) << errors[2];
}

TEST_F(OplogCheckTest, PastItsMemoryItWarnsInsteadOfComparing) {
  WriteHistory();
  OplogCheck check = Check(/*max_memory_bytes=*/100);
  EXPECT_EQ(check.records_checked, 0);
  ASSERT_EQ(check.warnings.size(), 1u);
  EXPECT_EQ(check.inconsistencies, 0);
}

}  // namespace
}  // namespace quarry::exec
