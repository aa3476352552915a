// IndexDescriptor: parsing catalog index specs, and the keys a document makes, by mongod's rules
// for btree indexes (missing fields, arrays, nested arrays, positional paths, parallel arrays,
// sparse and partial indexes, descending fields).
#include "exec/index_descriptor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index_test_util.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

using testing::Doc;
using testing::Index;
using Strings = std::vector<std::string>;

// The keys of `doc_json` in `index`, each as its keyValue document in JSON, in key order. Checks
// that each key's bytes are its values' encodings and that the keys are sorted and distinct.
Strings Keys(const IndexDescriptor& index, std::string_view doc_json) {
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json), /*with_values=*/true);
  EXPECT_TRUE(keys.ok()) << keys.status().ToString() << " for " << doc_json;
  if (!keys.ok()) return {};
  Strings out;
  for (std::size_t key_idx = 0; key_idx < keys.value().size(); ++key_idx) {
    const IndexKey& key = keys.value()[key_idx];
    std::string expected;
    for (const IndexField& field : index.fields()) {
      storage::AppendIndexKey(key.values.Get(field.path), field.descending, index.collator(),
                              &expected);
    }
    EXPECT_EQ(key.encoded, expected) << key.values.ToJson();
    if (key_idx > 0) {
      EXPECT_LT(keys.value()[key_idx - 1].encoded, key.encoded);
    }
    out.push_back(key.values.ToJson());
  }
  return out;
}

Status KeysError(const IndexDescriptor& index, std::string_view doc_json) {
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json));
  return keys.ok() ? Status::OK() : keys.status();
}

bool Multikey(const IndexDescriptor& index, std::string_view doc_json) {
  StatusWith<bool> multikey = index.IsMultikeyFor(Doc(doc_json));
  EXPECT_TRUE(multikey.ok()) << multikey.status().ToString();
  return multikey.ok() && multikey.value();
}

Status ParseError(std::string_view spec_json) {
  StatusWith<IndexDescriptor> index = IndexDescriptor::Parse(Doc(spec_json), 1);
  return index.ok() ? Status::OK() : index.status();
}

TEST(IndexDescriptorTest, ScalarFieldMakesOneKey) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Keys(index, R"({"_id": 1, "a": 5, "b": "x"})"), Strings{R"({ "a" : 5 })"});
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(R"({"a": "s"})"));
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys.value().size(), 1u);
  EXPECT_EQ(keys.value()[0].encoded, storage::EncodeIndexKey(Doc(R"({"v": "s"})").Get("v")));
  EXPECT_FALSE(Multikey(index, R"({"a": 5})"));
}

TEST(IndexDescriptorTest, WithoutValuesTheValuesAreEmpty) {
  StatusWith<std::vector<IndexKey>> keys = Index(R"({"a": 1})").KeysOf(Doc(R"({"a": 5})"));
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys.value().size(), 1u);
  EXPECT_TRUE(keys.value()[0].values.view().empty());
}

TEST(IndexDescriptorTest, MissingFieldIsIndexedAsNull) {
  EXPECT_EQ(Keys(Index(R"({"a": 1})"), R"({"b": 1})"), Strings{R"({ "a" : null })"});
  EXPECT_EQ(Keys(Index(R"({"a": 1})"), R"({"a": null})"), Strings{R"({ "a" : null })"});
  // A path through a scalar reaches nothing either.
  EXPECT_EQ(Keys(Index(R"({"a.b": 1})"), R"({"a": 5})"), Strings{R"({ "a.b" : null })"});
  EXPECT_EQ(Keys(Index(R"({"a.b": 1})"), R"({"a": {"c": 1}})"), Strings{R"({ "a.b" : null })"});
}

TEST(IndexDescriptorTest, NestedDocumentFieldIsFollowed) {
  EXPECT_EQ(Keys(Index(R"({"a.b.c": 1})"), R"({"a": {"b": {"c": "deep"}}})"),
            Strings{R"({ "a.b.c" : "deep" })"});
  EXPECT_EQ(Keys(Index(R"({"a": 1})"), R"({"a": {"x": 1}})"), Strings{R"({ "a" : { "x" : 1 } })"});
}

TEST(IndexDescriptorTest, ArrayMakesOneKeyPerElementInKeyOrder) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Keys(index, R"({"a": [3, 1, 2]})"),
            (Strings{R"({ "a" : 1 })", R"({ "a" : 2 })", R"({ "a" : 3 })"}));
  EXPECT_EQ(Keys(index, R"({"a": ["x", 1, null, {}, true]})"),
            (Strings{R"({ "a" : null })", R"({ "a" : 1 })", R"({ "a" : "x" })", R"({ "a" : {  } })",
                     R"({ "a" : true })"}));
  EXPECT_TRUE(Multikey(index, R"({"a": [3, 1, 2]})"));
}

TEST(IndexDescriptorTest, EqualElementsMakeOneKeyTheFirstInDocumentOrder) {
  StatusWith<std::vector<IndexKey>> keys =
      Index(R"({"a": 1})")
          .KeysOf(Doc(R"({"a": [{"$numberDouble": "1.0"}, 1, {"$numberLong": "1"}, 2, 2]})"), true);
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys.value().size(), 2u);
  EXPECT_EQ(keys.value()[0].values.Get("a").type(), bson::Type::kDouble);
  EXPECT_EQ(keys.value()[1].values.ToJson(), R"({ "a" : 2 })");
}

TEST(IndexDescriptorTest, OneElementArrayMakesOneKeyButIsMultikey) {
  IndexDescriptor index = Index(R"({"a": 1})");
  EXPECT_EQ(Keys(index, R"({"a": [7]})"), Strings{R"({ "a" : 7 })"});
  EXPECT_TRUE(Multikey(index, R"({"a": [7]})"));
  StatusWith<DocumentKeys> both = index.KeysAndMultikeyOf(Doc(R"({"a": [7, 8]})"));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both.value().keys.size(), 2u);
  EXPECT_TRUE(both.value().multikey);
}

TEST(IndexDescriptorTest, EmptyArrayIsIndexedAsUndefined) {
  EXPECT_EQ(Keys(Index(R"({"a": 1})"), R"({"a": []})"),
            Strings{R"({ "a" : { "$undefined" : true } })"});
  EXPECT_TRUE(Multikey(Index(R"({"a": 1})"), R"({"a": []})"));
  // Inside a path, an empty array leaves nothing to follow: null.
  EXPECT_EQ(Keys(Index(R"({"a.b": 1})"), R"({"a": []})"), Strings{R"({ "a.b" : null })"});
  EXPECT_EQ(Keys(Index(R"({"a.b": 1})"), R"({"a": [{"b": []}, {"b": 1}]})"),
            (Strings{R"({ "a.b" : { "$undefined" : true } })", R"({ "a.b" : 1 })"}));
}

TEST(IndexDescriptorTest, NestedArraysExpandOneLevelOnly) {
  EXPECT_EQ(Keys(Index(R"({"a": 1})"), R"({"a": [[1, 2], 3]})"),
            (Strings{R"({ "a" : 3 })", R"({ "a" : [ 1, 2 ] })"}));
  EXPECT_EQ(Keys(Index(R"({"a": 1})"), R"({"a": [[]]})"), Strings{R"({ "a" : [  ] })"});
  EXPECT_EQ(Keys(Index(R"({"a.b": 1})"), R"({"a": {"b": [[1], [2]]}})"),
            (Strings{R"({ "a.b" : [ 1 ] })", R"({ "a.b" : [ 2 ] })"}));
}

TEST(IndexDescriptorTest, PathsThroughArraysOfDocumentsCollectEachElementsValue) {
  IndexDescriptor index = Index(R"({"a.b": 1})");
  EXPECT_EQ(Keys(index, R"({"a": [{"b": 1}, {"b": 2}]})"),
            (Strings{R"({ "a.b" : 1 })", R"({ "a.b" : 2 })"}));
  // Elements without the field, and elements that are not documents, give null.
  EXPECT_EQ(Keys(index, R"({"a": [{"b": 1}, {"c": 2}, 5]})"),
            (Strings{R"({ "a.b" : null })", R"({ "a.b" : 1 })"}));
  // Arrays at several levels of one path all expand.
  EXPECT_EQ(
      Keys(Index(R"({"a.b.c": 1})"), R"({"a": [{"b": [{"c": 1}, {"c": 2}]}, {"b": {"c": 3}}]})"),
      (Strings{R"({ "a.b.c" : 1 })", R"({ "a.b.c" : 2 })", R"({ "a.b.c" : 3 })"}));
  // An array inside the array is not a document: nothing to follow.
  EXPECT_EQ(Keys(index, R"({"a": [[{"b": 1}]]})"), Strings{R"({ "a.b" : null })"});
  EXPECT_TRUE(Multikey(index, R"({"a": [{"b": 1}]})"));
}

TEST(IndexDescriptorTest, NumericComponentNamesAnArrayPosition) {
  IndexDescriptor first = Index(R"({"a.0": 1})");
  EXPECT_EQ(Keys(first, R"({"a": [5, 6]})"), Strings{R"({ "a.0" : 5 })"});
  EXPECT_FALSE(Multikey(first, R"({"a": [5, 6]})"));
  // A document's field named "0" is a field like any other.
  EXPECT_EQ(Keys(first, R"({"a": {"0": 7}})"), Strings{R"({ "a.0" : 7 })"});
  // The element at the position is indexed whole, even an array.
  EXPECT_EQ(Keys(first, R"({"a": [[1, 2], 3]})"), Strings{R"({ "a.0" : [ 1, 2 ] })"});
  EXPECT_FALSE(Multikey(first, R"({"a": [[1, 2], 3]})"));
  // Past the end of the array the component names no position: each element is followed.
  EXPECT_EQ(Keys(Index(R"({"a.5": 1})"), R"({"a": [1, {"5": 2}]})"),
            (Strings{R"({ "a.5" : null })", R"({ "a.5" : 2 })"}));
  IndexDescriptor second_b = Index(R"({"a.1.b": 1})");
  EXPECT_EQ(Keys(second_b, R"({"a": [{"b": 1}, {"b": 2}]})"), Strings{R"({ "a.1.b" : 2 })"});
  // An array after the position still expands.
  EXPECT_EQ(Keys(Index(R"({"a.0.b": 1})"), R"({"a": [{"b": [1, 2]}]})"),
            (Strings{R"({ "a.0.b" : 1 })", R"({ "a.0.b" : 2 })"}));
  EXPECT_TRUE(Multikey(Index(R"({"a.0.b": 1})"), R"({"a": [{"b": [1, 2]}]})"));
}

TEST(IndexDescriptorTest, NumericFieldInAnElementOfThatArrayFailsAsAmbiguous) {
  Status status = KeysError(Index(R"({"a.0": 1})"), R"({"a": [{"0": 1}]})");
  EXPECT_EQ(status.code(), ErrorCode::kLocation16746);
  EXPECT_NE(status.reason().find("Ambiguous field name found in array"), std::string::npos)
      << status.reason();
}

TEST(IndexDescriptorTest, CompoundIndexWithOneArrayPairsEachElementWithTheOtherFields) {
  IndexDescriptor index = Index(R"({"a": 1, "b": 1})");
  EXPECT_EQ(Keys(index, R"({"a": [2, 1], "b": "x"})"),
            (Strings{R"({ "a" : 1, "b" : "x" })", R"({ "a" : 2, "b" : "x" })"}));
  EXPECT_EQ(Keys(index, R"({"b": [1, 2]})"),
            (Strings{R"({ "a" : null, "b" : 1 })", R"({ "a" : null, "b" : 2 })"}));
}

TEST(IndexDescriptorTest, CompoundFieldsThroughOneArrayPairWithinEachElement) {
  IndexDescriptor index = Index(R"({"x.a": 1, "x.b": 1})");
  EXPECT_EQ(Keys(index, R"({"x": [{"a": 1, "b": 2}, {"a": 3, "b": 4}]})"),
            (Strings{R"({ "x.a" : 1, "x.b" : 2 })", R"({ "x.a" : 3, "x.b" : 4 })"}));
  // A field and a path below it share the array too.
  EXPECT_EQ(Keys(Index(R"({"x": 1, "x.a": 1})"), R"({"x": [{"a": 1}]})"),
            Strings{R"({ "x" : { "a" : 1 }, "x.a" : 1 })"});
}

TEST(IndexDescriptorTest, ParallelArraysFailAsMongodDoes) {
  Status status = KeysError(Index(R"({"a": 1, "b": 1})"), R"({"a": [1], "b": [2]})");
  EXPECT_EQ(status.code(), ErrorCode::kCannotIndexParallelArrays);
  EXPECT_EQ(status.reason(), "cannot index parallel arrays [b] [a]");
  // Empty arrays are arrays too, and the names are the arrays' own fields.
  EXPECT_EQ(KeysError(Index(R"({"a": 1, "c.b": 1})"), R"({"a": [], "c": {"b": [1]}})").reason(),
            "cannot index parallel arrays [b] [a]");
  // Inside one array's elements.
  EXPECT_EQ(
      KeysError(Index(R"({"x.a": 1, "x.b": 1})"), R"({"x": [{"a": [1], "b": [2]}]})").reason(),
      "cannot index parallel arrays [b] [a]");
  EXPECT_TRUE(KeysError(Index(R"({"a": 1, "b": 1})"), R"({"a": [1], "b": 2})").ok());
}

TEST(IndexDescriptorTest, SparseIndexSkipsKeysWithoutAnyKeyField) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"sparse": true})");
  EXPECT_EQ(Keys(index, R"({"b": 1})"), Strings{});
  EXPECT_EQ(Keys(index, R"({"a": null})"), Strings{R"({ "a" : null })"});
  EXPECT_EQ(Keys(index, R"({"a": []})"), Strings{R"({ "a" : { "$undefined" : true } })"});
  IndexDescriptor compound = Index(R"({"a": 1, "b": 1})", R"({"sparse": true})");
  EXPECT_EQ(Keys(compound, R"({"b": 1})"), Strings{R"({ "a" : null, "b" : 1 })"});
  EXPECT_EQ(Keys(compound, R"({"c": 1})"), Strings{});
  // Key by key: an element without the field makes no key.
  EXPECT_EQ(Keys(Index(R"({"a.b": 1})", R"({"sparse": true})"), R"({"a": [{"b": 1}, {"c": 1}]})"),
            Strings{R"({ "a.b" : 1 })"});
}

TEST(IndexDescriptorTest, PartialIndexSkipsDocumentsItsFilterRejects) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"partialFilterExpression": {"b": {"$gt": 5}}})");
  EXPECT_EQ(Keys(index, R"({"a": 1, "b": 3})"), Strings{});
  EXPECT_EQ(Keys(index, R"({"a": 1})"), Strings{});
  EXPECT_EQ(Keys(index, R"({"a": 1, "b": 6})"), Strings{R"({ "a" : 1 })"});
  EXPECT_FALSE(Multikey(index, R"({"a": [1, 2], "b": 3})"));
  EXPECT_TRUE(Multikey(index, R"({"a": [1, 2], "b": 6})"));
}

TEST(IndexDescriptorTest, DescendingFieldsReverseTheEncodedOrder) {
  IndexDescriptor index = Index(R"({"a": -1})");
  EXPECT_EQ(Keys(index, R"({"a": [1, 3, 2]})"),
            (Strings{R"({ "a" : 3 })", R"({ "a" : 2 })", R"({ "a" : 1 })"}));
  StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(R"({"a": "s"})"));
  ASSERT_TRUE(keys.ok());
  std::string inverted = storage::EncodeIndexKey(Doc(R"({"v": "s"})").Get("v"));
  for (char& c : inverted) c = static_cast<char>(~c);
  EXPECT_EQ(keys.value()[0].encoded, inverted);
  EXPECT_EQ(Keys(Index(R"({"a": 1, "b": -1})"), R"({"a": 1, "b": [1, 2]})"),
            (Strings{R"({ "a" : 1, "b" : 2 })", R"({ "a" : 1, "b" : 1 })"}));
  EXPECT_EQ(Keys(Index(R"({"a": -1, "b": 1})"), R"({"a": [1, 2], "b": 1})"),
            (Strings{R"({ "a" : 2, "b" : 1 })", R"({ "a" : 1, "b" : 1 })"}));
}

TEST(IndexDescriptorTest, CollatedIndexKeysCollationEqualStringsAlike) {
  IndexDescriptor index = Index(R"({"a": 1})", R"({"collation": {"locale": "en", "strength": 2}})");
  ASSERT_NE(index.collator(), nullptr);
  auto encoded = [&](std::string_view doc_json) {
    StatusWith<std::vector<IndexKey>> keys = index.KeysOf(Doc(doc_json));
    EXPECT_TRUE(keys.ok() && keys.value().size() == 1) << doc_json;
    return keys.ok() && !keys.value().empty() ? keys.value()[0].encoded : std::string();
  };
  EXPECT_EQ(encoded(R"({"a": "Alice"})"), encoded(R"({"a": "ALICE"})"));
  EXPECT_EQ(encoded(R"({"a": {"b": ["x"]}})"), encoded(R"({"a": {"b": ["X"]}})"));
  EXPECT_NE(encoded(R"({"a": "alice"})"), encoded(R"({"a": "alicf"})"));
  EXPECT_LT(encoded(R"({"a": "b"})"), encoded(R"({"a": "C"})"));  // bytes would order C first
  EXPECT_LT(encoded(R"({"a": 99})"), encoded(R"({"a": "0"})"));   // numbers before strings
  // Keys of one document that are equal under the collation are one key.
  EXPECT_EQ(Keys(index, R"({"a": ["x", "X", "y"]})"),
            (Strings{R"({ "a" : "x" })", R"({ "a" : "y" })"}));
  EXPECT_EQ(Index(R"({"a": 1})", R"({"collation": {"locale": "simple"}})").collator(), nullptr);
}

TEST(IndexDescriptorTest, PartialFilterOfACollatedIndexComparesUnderItsCollation) {
  IndexDescriptor index = Index(
      R"({"a": 1})",
      R"({"collation": {"locale": "en", "strength": 2}, "partialFilterExpression": {"b": "yes"}})");
  EXPECT_EQ(Keys(index, R"({"a": 1, "b": "YES"})"), Strings{R"({ "a" : 1 })"});
  EXPECT_EQ(Keys(index, R"({"a": 1, "b": "no"})"), Strings{});
}

TEST(IndexDescriptorTest, BadCollationFailsAsInMongod) {
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "a_1", "collation": {"locale": "en", )"
                       R"("strength": 9}})")
                .code(),
            static_cast<ErrorCode>(51024));
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}, "name": "a_1", "collation": "en"})").code(),
            ErrorCode::kTypeMismatch);
}

TEST(IndexDescriptorTest, ValuesAreTheKeyValueOfADuplicateKeyError) {
  EXPECT_EQ(Keys(Index(R"({"a": 1, "b.c": -1})"), R"({"b": {"c": "x"}, "a": 1})"),
            Strings{R"({ "a" : 1, "b.c" : "x" })"});
  EXPECT_EQ(Keys(Index(R"({"a": 1, "b.c": 1})"), R"({"a": [], "b": 2})"),
            Strings{R"({ "a" : { "$undefined" : true }, "b.c" : null })"});
}

TEST(IndexDescriptorTest, KeysHaveNoSizeLimit) {
  const std::string big(20000, 'x');
  bson::DocumentBuilder doc;
  doc.AppendString("a", big);
  StatusWith<std::vector<IndexKey>> keys = Index(R"({"a": 1})").KeysOf(std::move(doc).Finish());
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys.value().size(), 1u);
  EXPECT_GT(keys.value()[0].encoded.size(), big.size());
}

TEST(IndexDescriptorTest, ParseReadsTheSpec) {
  StatusWith<IndexDescriptor> parsed = IndexDescriptor::Parse(
      Doc(R"({"v": 2, "key": {"a.b": 1, "c": -1.5}, "name": "ab_c", "unique": true,
              "sparse": 1, "hidden": false, "expireAfterSeconds": 60,
              "partialFilterExpression": {"c": {"$exists": true}}})"),
      42);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const IndexDescriptor& index = parsed.value();
  EXPECT_EQ(index.id(), 42u);
  EXPECT_EQ(index.name(), "ab_c");
  EXPECT_EQ(index.key_pattern().ToJson(), R"({ "a.b" : 1, "c" : -1.5 })");
  ASSERT_EQ(index.fields().size(), 2u);
  EXPECT_EQ(index.fields()[0].path, "a.b");
  EXPECT_FALSE(index.fields()[0].descending);
  EXPECT_EQ(index.fields()[1].path, "c");
  EXPECT_TRUE(index.fields()[1].descending);
  EXPECT_TRUE(index.unique());
  EXPECT_TRUE(index.sparse());
  EXPECT_FALSE(index.hidden());
  ASSERT_NE(index.partial_filter(), nullptr);
  EXPECT_TRUE(index.partial_filter()->Matches(Doc(R"({"c": 1})")));
  EXPECT_EQ(index.spec().Get("expireAfterSeconds").AsInt64(), 60);
  EXPECT_EQ(Index(R"({"a": 1})").partial_filter(), nullptr);
}

TEST(IndexDescriptorTest, KeyPatternsQuarryCannotIndexFailWithCannotCreateIndex) {
  for (const char* key :
       {R"({"t": "text"})", R"({"p": "2d"})", R"({"p": "2dsphere"})", R"({"h": "hashed"})",
        R"({"a": 1, "h": "hashed"})", R"({"$**": 1, "b": 1})", R"({"$**": "text"})"}) {
    Status status = ParseError(std::string(R"({"name": "x", "key": )") + key + "}");
    EXPECT_EQ(status.code(), ErrorCode::kCannotCreateIndex) << key;
    EXPECT_NE(status.reason().find("not supported by Quarry yet"), std::string::npos) << key;
  }
}

TEST(IndexDescriptorTest, BadKeyPatternsFailWithCannotCreateIndex) {
  std::string many = "{";
  for (int field_idx = 0; field_idx < 33; ++field_idx) {
    many += (field_idx == 0 ? "\"f" : ", \"f") + std::to_string(field_idx) + "\": 1";
  }
  many += "}";
  for (const std::string& key :
       {std::string("{}"), std::string(R"({"a": 0})"), std::string(R"({"a": true})"),
        std::string(R"({"a": null})"), std::string(R"({"a": {"$numberDouble": "NaN"}})"),
        std::string(R"({"a..b": 1})"), std::string(R"({"": 1})"), std::string(R"({"$a": 1})"),
        std::string(R"({"a.$b": 1})"), many}) {
    EXPECT_EQ(ParseError(R"({"name": "x", "key": )" + key + "}").code(),
              ErrorCode::kCannotCreateIndex)
        << key;
  }
  EXPECT_EQ(ParseError(R"({"name": "x", "key": 1})").code(), ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(ParseError(R"({"key": {"a": 1}})").code(), ErrorCode::kCannotCreateIndex);
  EXPECT_EQ(ParseError(R"({"name": "", "key": {"a": 1}})").code(), ErrorCode::kCannotCreateIndex);
  // The fields of a DBRef may be indexed.
  EXPECT_TRUE(ParseError(R"({"name": "x", "key": {"r.$id": 1}})").ok());
  std::string thirty_two = many.substr(0, many.rfind(", \"f32\"")) + "}";
  EXPECT_TRUE(ParseError(R"({"name": "x", "key": )" + thirty_two + "}").ok());
}

TEST(IndexDescriptorTest, BadPartialFilterFailsWithTheMatchersError) {
  Status status = ParseError(
      R"({"name": "x", "key": {"a": 1}, "partialFilterExpression": {"a": {"$bogus": 1}}})");
  EXPECT_EQ(status.code(), ErrorCode::kBadValue);
  EXPECT_EQ(status.reason(), "unknown operator: $bogus");
  EXPECT_EQ(ParseError(R"({"name": "x", "key": {"a": 1}, "partialFilterExpression": 5})").code(),
            ErrorCode::kCannotCreateIndex);
}

}  // namespace
}  // namespace quarry::exec
