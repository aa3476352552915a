// Options Quarry does not implement answer NotImplemented naming the option, and their
// harmless forms (the simple collation, returnKey false, an empty min) are accepted.
#include "commands/unsupported_options.h"

#include <gtest/gtest.h>

#include <string>

#include "bson/json.h"

namespace quarry::commands {
namespace {

// {"v": <value>} from JSON, whose "v" the checks read; an absent "v" is an absent option.
bson::Document Holder(std::string_view value_json) {
  StatusWith<bson::Document> doc = bson::FromJson("{\"v\": " + std::string(value_json) + "}");
  EXPECT_TRUE(doc.ok()) << doc.status().ToString() << " in " << value_json;
  return doc.ok() ? std::move(doc).value() : bson::Document();
}

Status Collation(std::string_view value_json) {
  bson::Document holder = Holder(value_json);
  return CheckCollation(holder.Get("v"), "createIndexes.indexes.");
}

TEST(UnsupportedOptionsTest, SimpleOrAbsentCollationIsAccepted) {
  EXPECT_TRUE(CheckCollation(bson::ValueView(), "").ok());
  EXPECT_TRUE(Collation("null").ok());
  EXPECT_TRUE(Collation(R"({"locale": "simple"})").ok());
}

TEST(UnsupportedOptionsTest, AnyOtherIndexCollationIsNotImplemented) {
  for (const char* collation : {R"({"locale": "en"})", R"({"locale": "fr", "strength": 1})"}) {
    Status checked = Collation(collation);
    EXPECT_EQ(checked.code(), ErrorCode::kNotImplemented) << collation;
    EXPECT_NE(checked.reason().find("collation"), std::string_view::npos) << checked.reason();
  }
}

TEST(UnsupportedOptionsTest, BadIndexCollationsFailAsInMongod) {
  EXPECT_EQ(Collation(R"({"locale": "simple", "strength": 2})").code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(Collation(R"({})").code(), ErrorCode::kNoSuchKey);
  EXPECT_EQ(Collation(R"({"locale": 1})").code(), ErrorCode::kTypeMismatch);
}

TEST(UnsupportedOptionsTest, CollationThatIsNotADocumentIsATypeMismatch) {
  Status checked = Collation(R"("en")");
  EXPECT_EQ(checked.code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(checked.reason(),
            "BSON field 'createIndexes.indexes.collation' is the wrong type 'string', expected "
            "type 'object'");
}

TEST(UnsupportedOptionsTest, FindKeyOptionsInTheirHarmlessFormsAreAccepted) {
  bson::Document off = Holder("false");
  bson::Document projection = Holder(R"({"a": 1})");
  EXPECT_TRUE(CheckFindKeyOptions(false, {}, {}).ok());
  EXPECT_TRUE(CheckFindKeyOptions(true, {}, off.Get("v")).ok());
  EXPECT_TRUE(CheckFindKeyOptions(false, projection.Get("v").Document(), {}).ok());
}

TEST(UnsupportedOptionsTest, FindKeyOptionsThatChangeResultsAreNotImplemented) {
  bson::Document on = Holder("true");
  struct Case {
    Status status;
    std::string_view option;
  };
  bson::Document projection = Holder(R"({"a": 1})");
  for (const Case& c :
       {Case{CheckFindKeyOptions(true, projection.Get("v").Document(), {}), "returnKey"},
        Case{CheckFindKeyOptions(false, {}, on.Get("v")), "showRecordId"}}) {
    EXPECT_EQ(c.status.code(), ErrorCode::kNotImplemented) << c.option;
    EXPECT_EQ(c.status.reason().substr(0, c.option.size()), c.option) << c.status.reason();
  }
}

}  // namespace
}  // namespace quarry::commands
