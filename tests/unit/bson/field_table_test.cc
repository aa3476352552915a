// FieldTable answers as DocumentView::Get does, for documents within and beyond its inline room.
#include "bson/field_table.h"

#include <gtest/gtest.h>

#include <string>

#include "bson/builder.h"

namespace quarry::bson {
namespace {

Document WithFields(int count) {
  DocumentBuilder b;
  for (int i = 0; i < count; ++i) b.AppendInt32("f" + std::to_string(i), i);
  return std::move(b).Finish();
}

TEST(FieldTableTest, FindsEveryFieldAsDocumentViewGetDoes) {
  for (int count : {0, 1, 15, 16, 17, 40}) {
    const Document document = WithFields(count);
    const FieldTable table(document.view());
    ASSERT_EQ(table.elements().size(), static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      const std::string key = "f" + std::to_string(i);
      ASSERT_TRUE(table.Has(key)) << key << " of " << count;
      EXPECT_EQ(table.Get(key).Int32(), i);
      EXPECT_EQ(table.Get(key).data(), document.view().Get(key).data());
    }
    EXPECT_FALSE(table.Has("f"));
    EXPECT_FALSE(table.Has("f" + std::to_string(count)));
  }
}

TEST(FieldTableTest, GivesTheFirstOfRepeatedKeysAndOnlyWholeKeys) {
  DocumentBuilder b;
  b.AppendInt32("lsid", 1);
  b.AppendInt32("lsid", 2);
  b.AppendInt32("autocommitted", 3);
  const Document document = std::move(b).Finish();
  const FieldTable table(document.view());
  EXPECT_EQ(table.Get("lsid").Int32(), 1);
  EXPECT_FALSE(table.HasAnyOf({"autocommit", "startTransaction"}));
  EXPECT_TRUE(table.HasAnyOf({"startTransaction", "autocommitted"}));
}

// HasAnyOf passes over fields by the lengths of the keys it looks for: keys of every length,
// from none to beyond 63 bytes, are still found, and a field of a sought length is still
// compared whole.
TEST(FieldTableTest, HasAnyOfFindsKeysOfEveryLength) {
  const std::string long_key(64, 'k');
  const std::string longer_key(100, 'k');
  DocumentBuilder b;
  b.AppendInt32("", 0);
  b.AppendInt32("abc", 1);
  b.AppendInt32(long_key, 2);
  b.AppendInt32(longer_key, 3);
  const Document document = std::move(b).Finish();
  const FieldTable table(document.view());
  EXPECT_TRUE(table.HasAnyOf({"x", ""}));
  EXPECT_TRUE(table.HasAnyOf({"abc"}));
  EXPECT_FALSE(table.HasAnyOf({"abd", "ab", "abcd"}));
  EXPECT_TRUE(table.HasAnyOf({"zz", long_key}));
  EXPECT_TRUE(table.HasAnyOf({longer_key}));
  EXPECT_FALSE(table.HasAnyOf({std::string(64, 'j'), std::string(65, 'k')}));
  EXPECT_FALSE(FieldTable(WithFields(3).view()).HasAnyOf({long_key, ""}));
}

TEST(FieldTableTest, ResetForgetsThePreviousDocument) {
  const Document many = WithFields(30);
  const Document few = WithFields(2);
  FieldTable table(many.view());
  table.Reset(few.view());
  EXPECT_EQ(table.elements().size(), 2u);
  EXPECT_FALSE(table.Has("f20"));
  EXPECT_EQ(table.Get("f1").Int32(), 1);
}

}  // namespace
}  // namespace quarry::bson
