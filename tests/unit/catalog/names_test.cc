// Database and collection name rules.
#include "catalog/names.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::catalog {
namespace {

TEST(NamesTest, OrdinaryNamesAreValid) {
  EXPECT_TRUE(ValidateDatabaseName("test").ok());
  EXPECT_TRUE(ValidateDatabaseName(std::string(63, 'd')).ok());
  EXPECT_TRUE(ValidateNamespace("test", "people").ok());
  EXPECT_TRUE(ValidateNamespace("test", "a.b.c").ok());
}

TEST(NamesTest, BadDatabaseNamesAreInvalidNamespace) {
  for (std::string bad : {std::string(""), std::string(64, 'd'), std::string("a/b"),
                          std::string("a\\b"), std::string("a.b"), std::string("a b"),
                          std::string("a\"b"), std::string("a$b"), std::string("a\0b", 3)}) {
    Status s = ValidateDatabaseName(bad);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidNamespace) << "'" << bad << "'";
  }
}

TEST(NamesTest, BadCollectionNamesAreInvalidNamespace) {
  for (std::string bad :
       {std::string(""), std::string("a$b"), std::string("$cmd"), std::string(".lead"),
        std::string("a\0b", 3), std::string("system.things")}) {
    Status s = ValidateNamespace("test", bad);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidNamespace) << "'" << bad << "'";
  }
}

TEST(NamesTest, SystemNamesNeedPermission) {
  EXPECT_FALSE(ValidateNamespace("test", "system.views").ok());
  EXPECT_TRUE(ValidateNamespace("test", "system.views", true).ok());
}

TEST(NamesTest, FullNamespaceIsLimitedTo255Bytes) {
  std::string db = "db";  // "db." + 252 = 255
  EXPECT_TRUE(ValidateNamespace(db, std::string(252, 'c')).ok());
  Status s = ValidateNamespace(db, std::string(253, 'c'));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidNamespace);
  EXPECT_NE(s.reason().find("too long"), std::string_view::npos);
}

TEST(NamesTest, CollectionCheckAlsoChecksTheDatabase) {
  EXPECT_EQ(ValidateNamespace("bad.db", "c").code(), ErrorCode::kInvalidNamespace);
}

}  // namespace
}  // namespace quarry::catalog
