// ValidateUtf8: every key and string of a document, at any depth, must be UTF-8.
#include <gtest/gtest.h>

#include <string>

#include "bson/builder.h"
#include "bson/json.h"
#include "bson/validate.h"

namespace quarry::bson {
namespace {

Status Check(const Document& document) {
  return ValidateUtf8(document.bytes().data(), document.size());
}

TEST(ValidateUtf8Test, AcceptsUtf8AndNulBytesInsideStrings) {
  DocumentBuilder b;
  b.AppendString("name", "caf\xc3\xa9");
  b.AppendString("with nul", std::string("a\0b", 3));
  b.OpenArray("list").AppendString("0", "\xe2\x82\xac").Close();
  EXPECT_TRUE(Check(std::move(b).Finish()).ok());
}

TEST(ValidateUtf8Test, FindsABadStringAtAnyDepthAndNamesItsField) {
  DocumentBuilder b;
  b.AppendInt32("n", 1);
  b.OpenDocument("outer").OpenArray("inner").AppendString("0", "ok \xc3").Close().Close();
  const Status status = Check(std::move(b).Finish());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), ErrorCode::kNonConformantBSON);
  EXPECT_NE(status.reason().find("'0'"), std::string_view::npos) << status.ToString();
}

TEST(ValidateUtf8Test, ChecksKeys) {
  DocumentBuilder b;
  b.AppendInt32("\xff", 1);
  EXPECT_EQ(Check(std::move(b).Finish()).code(), ErrorCode::kNonConformantBSON);
}

// Code with scope, regular expressions and DB pointers hold strings inside their values.
TEST(ValidateUtf8Test, ChecksStringsInsideCodeRegexesAndPointers) {
  const char* const kGood[] = {
      R"json({"c": {"$code": "f()", "$scope": {"x": "caf\u00e9"}}})json",
      R"json({"r": {"$regularExpression": {"pattern": "^caf\u00e9", "options": "i"}}})json",
      R"json({"p": {"$dbPointer": {"$ref": "caf\u00e9", "$id": {"$oid": "57e193d7a9cc81b4027498b5"}}}})json",
  };
  for (const char* json : kGood) {
    StatusWith<Document> document = FromJson(json);
    ASSERT_TRUE(document.ok()) << json;
    EXPECT_TRUE(Check(document.value()).ok()) << json;
    // The same document with its last UTF-8 "é" cut to its first byte.
    std::string bytes = document.value().bytes();
    const std::size_t at = bytes.rfind("\xc3\xa9");
    ASSERT_NE(at, std::string::npos) << json;
    bytes[at + 1] = 'x';
    EXPECT_EQ(ValidateUtf8(bytes.data(), bytes.size()).code(), ErrorCode::kNonConformantBSON)
        << json;
  }
}

}  // namespace
}  // namespace quarry::bson
