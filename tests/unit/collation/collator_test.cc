#include "collation/collator.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "bson/json.h"

namespace quarry::collation {
namespace {

bson::Document Json(std::string_view json) { return bson::FromJson(json).value(); }

CollatorPtr Make(std::string_view json) {
  bson::Document spec = Json(json);
  StatusWith<CollatorPtr> collator = Collator::Parse(spec.view());
  EXPECT_TRUE(collator.ok()) << collator.status().ToString();
  return collator.ok() ? collator.value() : nullptr;
}

Status ParseError(std::string_view json) {
  bson::Document spec = Json(json);
  return Collator::Parse(spec.view()).status();
}

TEST(CollatorTest, SimpleLocaleIsNoCollator) {
  EXPECT_EQ(Make(R"({"locale": "simple"})"), nullptr);
}

TEST(CollatorTest, FullySpecifiedFormHasEveryOption) {
  CollatorPtr c = Make(R"({"locale": "en_US", "strength": 2})");
  ASSERT_NE(c, nullptr);
  bson::DocumentView spec = c->spec();
  EXPECT_EQ(spec.Get("locale").String(), "en_US");
  EXPECT_EQ(spec.Get("strength").AsInt64(), 2);
  EXPECT_FALSE(spec.Get("caseLevel").Bool());
  EXPECT_EQ(spec.Get("caseFirst").String(), "off");
  EXPECT_FALSE(spec.Get("numericOrdering").Bool());
  EXPECT_EQ(spec.Get("alternate").String(), "non-ignorable");
  EXPECT_EQ(spec.Get("maxVariable").String(), "punct");
  EXPECT_FALSE(spec.Get("normalization").Bool());
  EXPECT_FALSE(spec.Get("backwards").Bool());
  EXPECT_TRUE(spec.Get("version").exists());
  EXPECT_EQ(spec.CountElements(), 10u);
}

TEST(CollatorTest, StrengthTwoIgnoresCaseButNotAccents) {
  CollatorPtr c = Make(R"({"locale": "en", "strength": 2})");
  EXPECT_EQ(c->Compare("Hello", "hello"), 0);
  EXPECT_NE(c->Compare("cafe", "café"), 0);
  EXPECT_LT(c->Compare("apple", "Banana"), 0);
}

TEST(CollatorTest, StrengthOneIgnoresAccentsToo) {
  CollatorPtr c = Make(R"({"locale": "fr", "strength": 1})");
  EXPECT_EQ(c->Compare("CAFE", "café"), 0);
}

TEST(CollatorTest, NumericOrderingComparesDigitsAsNumbers) {
  CollatorPtr c = Make(R"({"locale": "en", "numericOrdering": true})");
  EXPECT_LT(c->Compare("2", "10"), 0);
  CollatorPtr plain = Make(R"({"locale": "en"})");
  EXPECT_GT(plain->Compare("2", "10"), 0);
}

TEST(CollatorTest, CaseFirstUpperPutsCapitalsFirst) {
  CollatorPtr c = Make(R"({"locale": "en", "caseFirst": "upper"})");
  EXPECT_LT(c->Compare("A", "a"), 0);
  CollatorPtr lower = Make(R"({"locale": "en", "caseFirst": "lower"})");
  EXPECT_GT(lower->Compare("A", "a"), 0);
}

TEST(CollatorTest, ShiftedAlternateIgnoresPunctuationAndSpaces) {
  CollatorPtr c = Make(R"({"locale": "en", "alternate": "shifted", "strength": 1})");
  EXPECT_EQ(c->Compare("a b", "ab"), 0);
  EXPECT_EQ(c->Compare("a-b", "ab"), 0);
  CollatorPtr spaces =
      Make(R"({"locale": "en", "alternate": "shifted", "maxVariable": "space", "strength": 1})");
  EXPECT_EQ(spaces->Compare("a b", "ab"), 0);
  EXPECT_NE(spaces->Compare("a-b", "ab"), 0);
}

TEST(CollatorTest, ComparisonKeysOrderAsCompare) {
  CollatorPtr c = Make(R"({"locale": "en", "numericOrdering": true, "strength": 2})");
  auto key = [&](std::string_view s) {
    std::string out;
    c->AppendComparisonKey(s, &out);
    return out;
  };
  EXPECT_EQ(key("ABC"), key("abc"));
  EXPECT_LT(key("2"), key("10"));
  EXPECT_LT(key("apple"), key("Banana"));
  std::string long_text(1000, 'x');
  EXPECT_LT(key(long_text), key(long_text + "y"));
}

TEST(CollatorTest, EqualsComparesFullySpecifiedForms) {
  CollatorPtr a = Make(R"({"locale": "en", "strength": 2})");
  CollatorPtr b = Make(R"({"strength": 2, "locale": "en", "caseLevel": false})");
  CollatorPtr c = Make(R"({"locale": "en"})");
  EXPECT_TRUE(bson::SameCollation(a.get(), b.get()));
  EXPECT_FALSE(bson::SameCollation(a.get(), c.get()));
  EXPECT_FALSE(bson::SameCollation(a.get(), nullptr));
  EXPECT_TRUE(bson::SameCollation(nullptr, nullptr));
}

TEST(CollatorTest, BadSpecsFailAsMongod) {
  EXPECT_EQ(ParseError(R"({"strength": 2})").code(), ErrorCode::kNoSuchKey);
  EXPECT_EQ(ParseError(R"({"locale": 1})").code(), ErrorCode::kTypeMismatch);
  Status bad_locale = ParseError(R"({"locale": "xx_nope"})");
  EXPECT_EQ(bad_locale.code(), ErrorCode::kBadValue);
  EXPECT_EQ(bad_locale.reason().rfind("Field 'locale' is invalid in: { locale: \"xx_nope\" }", 0),
            0u)
      << bad_locale.reason();
  Status strength = ParseError(R"({"locale": "en", "strength": 6})");
  EXPECT_EQ(static_cast<int>(strength.code()), 51024);
  EXPECT_EQ(strength.reason(),
            "BSON field 'collation.strength' value must be >= 1 and <= 5, actual value '6'");
  EXPECT_EQ(ParseError(R"({"locale": "en", "strength": "2"})").code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"locale": "en", "caseLevel": 1})").code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseError(R"({"locale": "en", "caseFirst": "sideways"})").code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"locale": "en", "alternate": "x"})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"locale": "en", "maxVariable": "x"})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"locale": "en", "foo": 1})").code(), ErrorCode::kLocation40415);
  EXPECT_EQ(ParseError(R"({"locale": "simple", "strength": 1})").code(), ErrorCode::kFailedToParse);
  EXPECT_EQ(ParseError(R"({"locale": ""})").code(), ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"locale": "en", "strength": 1, "backwards": true})").code(),
            ErrorCode::kBadValue);
  EXPECT_EQ(ParseError(R"({"locale": "en", "strength": 2, "caseFirst": "upper"})").code(),
            ErrorCode::kBadValue);
  EXPECT_TRUE(ParseError(R"({"locale": "en", "strength": 2, "caseFirst": "upper",
                             "caseLevel": true})")
                  .ok());
  EXPECT_EQ(ParseError(R"({"locale": "en", "version": "1.0"})").code(),
            ErrorCode::kIncompatibleCollationVersion);
}

TEST(CollatorTest, ArgumentMustBeADocument) {
  bson::Document doc = Json(R"({"c": 5, "n": null})");
  Status status = Collator::ParseArgument(doc.view().Get("c"), "").status();
  EXPECT_EQ(status.code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(status.reason(),
            "BSON field 'collation' is the wrong type 'int', expected type 'object'");
  EXPECT_EQ(Collator::ParseArgument(doc.view().Get("n"), "").value(), nullptr);
  EXPECT_EQ(Collator::ParseArgument(doc.view().Get("missing"), "").value(), nullptr);
}

// One collator serves every connection's thread at once.
TEST(CollatorTest, ConcurrentUseFromManyThreadsAgrees) {
  CollatorPtr c = Make(R"({"locale": "de", "strength": 1, "numericOrdering": true})");
  std::string expected;
  c->AppendComparisonKey("Straße 10", &expected);
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string key;
        c->AppendComparisonKey("Straße 10", &key);
        if (key != expected || c->Compare("strasse 9", "STRASSE 10") >= 0) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace quarry::collation
