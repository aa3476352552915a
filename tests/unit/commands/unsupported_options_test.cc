// Options Quarry does not implement answer NotImplemented naming the option, and their
// harmless forms (returnKey false, or without a projection) are accepted.
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

TEST(UnsupportedOptionsTest, FindKeyOptionsInTheirHarmlessFormsAreAccepted) {
  bson::Document projection = Holder(R"({"a": 1})");
  EXPECT_TRUE(CheckFindKeyOptions(false, {}).ok());
  EXPECT_TRUE(CheckFindKeyOptions(true, {}).ok());
  EXPECT_TRUE(CheckFindKeyOptions(false, projection.Get("v").Document()).ok());
}

TEST(UnsupportedOptionsTest, FindKeyOptionsThatChangeResultsAreNotImplemented) {
  struct Case {
    Status status;
    std::string_view option;
  };
  bson::Document projection = Holder(R"({"a": 1})");
  for (const Case& c :
       {Case{CheckFindKeyOptions(true, projection.Get("v").Document()), "returnKey"}}) {
    EXPECT_EQ(c.status.code(), ErrorCode::kNotImplemented) << c.option;
    EXPECT_EQ(c.status.reason().substr(0, c.option.size()), c.option) << c.status.reason();
  }
}

}  // namespace
}  // namespace quarry::commands
