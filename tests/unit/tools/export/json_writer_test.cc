#include "tools/export/json_writer.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::tools::exporting {
namespace {

class JsonWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* json[] = {R"({"a": 1})", R"({"b": {"c": "x"}})"};
    for (int doc_idx = 0; doc_idx < 2; ++doc_idx) {
      bson_error_t error;
      docs_[doc_idx] =
          bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json[doc_idx]), -1, &error);
      ASSERT_NE(docs_[doc_idx], nullptr) << error.message;
    }
  }
  void TearDown() override {
    for (bson_t* doc : docs_) {
      if (doc != nullptr) bson_destroy(doc);
    }
  }

  std::string Run(JsonFormatter formatter, std::size_t count) {
    std::string out;
    formatter.Begin(&out);
    for (std::size_t doc_idx = 0; doc_idx < count; ++doc_idx) formatter.Add(*docs_[doc_idx], &out);
    formatter.Finish(&out);
    return out;
  }

  // An array, not a vector: bson_t's alignment attribute is an error on a template argument.
  bson_t* docs_[2] = {nullptr, nullptr};
};

TEST_F(JsonWriterTest, DefaultIsOneCompactDocumentPerLine) {
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, false, false), 2),
            "{\"a\":1}\n{\"b\":{\"c\":\"x\"}}\n");
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, false, false), 0), "");
}

TEST_F(JsonWriterTest, CanonicalSpellsOutNumberTypes) {
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kCanonical, false, false), 1),
            "{\"a\":{\"$numberInt\":\"1\"}}\n");
}

TEST_F(JsonWriterTest, JsonArraySeparatesWithCommas) {
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, true, false), 2),
            "[{\"a\":1},{\"b\":{\"c\":\"x\"}}]\n");
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, true, false), 1), "[{\"a\":1}]\n");
}

TEST_F(JsonWriterTest, EmptyJsonArrayIsStillAnArray) {
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, true, false), 0), "[]\n");
}

TEST_F(JsonWriterTest, PrettyIndentsEachDocument) {
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, false, true), 2),
            "{\n\t\"a\": 1\n}\n{\n\t\"b\": {\n\t\t\"c\": \"x\"\n\t}\n}\n");
}

TEST_F(JsonWriterTest, PrettyJsonArrayPutsCommaBeforeEachNewline) {
  EXPECT_EQ(Run(JsonFormatter(JsonFormat::kRelaxed, true, true), 2),
            "[{\n\t\"a\": 1\n},\n{\n\t\"b\": {\n\t\t\"c\": \"x\"\n\t}\n}]\n");
}

}  // namespace
}  // namespace quarry::tools::exporting
