// PathComponents, the one walker over dotted paths, and the lookups built on it.
#include "bson/path.h"

#include <gtest/gtest.h>

#include <ranges>
#include <string>
#include <vector>

#include "bson/json.h"

namespace quarry::bson {
namespace {

static_assert(std::ranges::input_range<PathComponents>);

// "name@offset" per component, with a trailing "!" on the last.
std::vector<std::string> Walk(std::string_view path) {
  std::vector<std::string> out;
  for (const PathComponent& part : PathComponents(path)) {
    out.push_back(std::string(part.name) + "@" + std::to_string(part.offset) +
                  (part.is_last ? "!" : ""));
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(PathComponentsTest, YieldsComponentsLeftToRight) {
  EXPECT_EQ(Walk("a.bc.0"), (Strings{"a@0", "bc@2", "0@5!"}));
}

TEST(PathComponentsTest, PathWithoutDotsIsOneLastComponent) {
  EXPECT_EQ(Walk("abc"), (Strings{"abc@0!"}));
}

TEST(PathComponentsTest, EveryDotSeparatesTwoComponentsEvenEmptyOnes) {
  EXPECT_EQ(Walk(""), (Strings{"@0!"}));
  EXPECT_EQ(Walk("."), (Strings{"@0", "@1!"}));
  EXPECT_EQ(Walk("a."), (Strings{"a@0", "@2!"}));
  EXPECT_EQ(Walk(".a"), (Strings{"@0", "a@1!"}));
  EXPECT_EQ(Walk("a..b"), (Strings{"a@0", "@2", "b@3!"}));
}

TEST(PathComponentsTest, OffsetGivesTheRestOfThePath) {
  const std::string_view path = "a.b.c";
  std::vector<std::string_view> rests;
  for (const PathComponent& part : PathComponents(path)) rests.push_back(path.substr(part.offset));
  EXPECT_EQ(rests, (std::vector<std::string_view>{"a.b.c", "b.c", "c"}));
}

TEST(PathComponentsTest, NamesViewTheCallersCharacters) {
  const std::string path = "x.yz";
  for (const PathComponent& part : PathComponents(path)) {
    EXPECT_EQ(part.name.data(), path.data() + part.offset);
  }
}

TEST(PathComponentsTest, WorksWithRangeAlgorithms) {
  EXPECT_EQ(std::ranges::distance(PathComponents("a.b.c.d")), 4);
}

TEST(SplitPathTest, GivesTheComponentNames) {
  EXPECT_EQ(SplitPath("a.b.c"), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_EQ(SplitPath("a..b"), (std::vector<std::string_view>{"a", "", "b"}));
}

TEST(GetPathTest, IndexesArraysByPositionButDoesNotTraverseThem) {
  StatusWith<Document> doc = FromJson(R"({"a": {"b": [10, {"c": 1}]}, "s": "x"})");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(GetPath(doc.value(), "a.b.0").AsInt64(), 10);
  EXPECT_EQ(GetPath(doc.value(), "a.b.1.c").AsInt64(), 1);
  EXPECT_FALSE(GetPath(doc.value(), "a.b.c").exists());
  EXPECT_FALSE(GetPath(doc.value(), "s.length").exists());
  EXPECT_FALSE(GetPath(doc.value(), "missing.x").exists());
  EXPECT_TRUE(GetPath(doc.value(), "s").exists());
}

}  // namespace
}  // namespace quarry::bson
