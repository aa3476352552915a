// Nested documents checked as mongod's IDL checks a strict struct.
#include "commands/strict_document.h"

#include <gtest/gtest.h>

#include "commands_test_util.h"

namespace quarry::commands {
namespace {

using testing::Doc;

Status Check(std::string_view json) {
  bson::Document doc = Doc(json);
  return CheckStrictDocument(doc.view(), "Cmd.users",
                             {{"user", bson::Type::kString, "string", true},
                              {"db", bson::Type::kString, "string", true},
                              {"note", bson::Type::kDocument, "object"}});
}

TEST(StrictDocumentTest, AcceptsTheDeclaredFields) {
  EXPECT_TRUE(Check(R"({"user": "ann", "db": "admin"})").ok());
  EXPECT_TRUE(Check(R"({"user": "ann", "db": "admin", "note": {}})").ok());
}

TEST(StrictDocumentTest, NamesTheFieldByItsPathAsMongodsIdl) {
  Status unknown = Check(R"({"user": "ann", "db": "admin", "x": 1})");
  EXPECT_EQ(unknown.code(), ErrorCode::kLocation40415);
  EXPECT_EQ(unknown.reason(), "BSON field 'Cmd.users.x' is an unknown field.");
  Status missing = Check(R"({"user": "ann"})");
  EXPECT_EQ(missing.code(), ErrorCode::kLocation40414);
  EXPECT_EQ(missing.reason(), "BSON field 'Cmd.users.db' is missing but a required field");
  Status wrong = Check(R"({"user": 1, "db": "admin"})");
  EXPECT_EQ(wrong.code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(wrong.reason(),
            "BSON field 'Cmd.users.user' is the wrong type 'int', expected type 'string'");
}

}  // namespace
}  // namespace quarry::commands
