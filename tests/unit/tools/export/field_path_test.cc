#include "tools/export/field_path.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::tools::exporting {
namespace {

class FieldPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* json = R"({"a": 1, "b": {"c": {"d": "deep"}}, "tags": ["x", "y", {"z": 5}],
                           "matrix": [[1, 2], [3, 4]], "s": "scalar", "n": null})";
    bson_error_t error;
    doc_ = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json), -1, &error);
    ASSERT_NE(doc_, nullptr) << error.message;
  }
  void TearDown() override { bson_destroy(doc_); }

  // The value's relaxed JSON, or "missing".
  std::string Find(std::string_view path) {
    bson_iter_t value;
    if (!FindDottedPath(*doc_, path, &value)) return "missing";
    bson_t wrapper = BSON_INITIALIZER;
    bson_append_iter(&wrapper, "v", 1, &value);
    char* json = bson_as_relaxed_extended_json(&wrapper, nullptr);
    std::string text = json;
    bson_free(json);
    bson_destroy(&wrapper);
    return text;
  }

  bson_t* doc_ = nullptr;
};

TEST_F(FieldPathTest, TopLevelField) { EXPECT_EQ(Find("a"), R"({ "v" : 1 })"); }

TEST_F(FieldPathTest, NestedDocuments) { EXPECT_EQ(Find("b.c.d"), R"({ "v" : "deep" })"); }

TEST_F(FieldPathTest, ArrayIndexPicksElement) {
  EXPECT_EQ(Find("tags.0"), R"({ "v" : "x" })");
  EXPECT_EQ(Find("tags.1"), R"({ "v" : "y" })");
  EXPECT_EQ(Find("tags.2.z"), R"({ "v" : 5 })");
  EXPECT_EQ(Find("matrix.1.0"), R"({ "v" : 3 })");
}

TEST_F(FieldPathTest, IndexWithLeadingZeroReadsAsNumber) {
  EXPECT_EQ(Find("tags.01"), R"({ "v" : "y" })");
}

TEST_F(FieldPathTest, MissingFieldsAndBadIndicesAreMissing) {
  EXPECT_EQ(Find("nope"), "missing");
  EXPECT_EQ(Find("b.x"), "missing");
  EXPECT_EQ(Find("tags.3"), "missing");
  EXPECT_EQ(Find("tags.-1"), "missing");
  EXPECT_EQ(Find("tags.z"), "missing");
  EXPECT_EQ(Find("tags."), "missing");
}

TEST_F(FieldPathTest, ScalarsHaveNoChildren) {
  EXPECT_EQ(Find("s.length"), "missing");
  EXPECT_EQ(Find("a.0"), "missing");
  EXPECT_EQ(Find("n.x"), "missing");
}

TEST_F(FieldPathTest, NullFieldIsFound) { EXPECT_EQ(Find("n"), R"({ "v" : null })"); }

}  // namespace
}  // namespace quarry::tools::exporting
