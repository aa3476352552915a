// The key encoding must order exactly as bson::CompareValues, for every BSON type.
#include "storage/key_encoding.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bson/builder.h"
#include "bson/compare.h"

namespace quarry::storage {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::Type;
using bson::ValueView;

int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

int CompareEncodings(const std::string& a, const std::string& b) {
  std::size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return Sign(c);
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

std::string Encode(ValueView v, bool descending = false) {
  std::string out;
  AppendIndexKey(v, descending, &out);
  return out;
}

void PutInt32(std::string* out, std::int32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Raw value bytes for the types DocumentBuilder has no appender for.
std::string StringValueBytes(std::string_view s) {
  std::string out;
  PutInt32(&out, static_cast<std::int32_t>(s.size() + 1));
  out.append(s);
  out.push_back('\0');
  return out;
}

void AppendRaw(DocumentBuilder* b, std::string_view key, Type type, const std::string& bytes) {
  b->Append(key, ValueView(type, bytes.data(), bytes.size()));
}

bson::Decimal128 MakeDecimal(bool negative, std::uint64_t coefficient, int exponent) {
  bson::Decimal128 d;
  d.low = coefficient;
  d.high =
      (static_cast<std::uint64_t>(exponent + 6176) << 49) | (negative ? std::uint64_t{1} << 63 : 0);
  return d;
}

// Values drawn from small domains, so that ties, near-ties and cross-type numeric equality
// come up often.
class RandomValues {
 public:
  explicit RandomValues(std::uint64_t seed) : rng_(seed) {}

  Document One() {
    DocumentBuilder b;
    Append(&b, "v", 0);
    return std::move(b).Finish();
  }

  void Append(DocumentBuilder* b, std::string_view key, int depth) {
    int kind = Pick(depth < 2 ? 24 : 21);
    switch (kind) {
      case 0:
        b->AppendMinKey(key);
        return;
      case 1:
        b->AppendMaxKey(key);
        return;
      case 2:
        b->AppendNull(key);
        return;
      case 3:
        b->AppendUndefined(key);
        return;
      case 4:
      case 5:
        AppendNumber(b, key);
        return;
      case 6:
        b->AppendString(key, SmallString());
        return;
      case 7:
        AppendRaw(b, key, Type::kSymbol, StringValueBytes(SmallString()));
        return;
      case 8:
        AppendBinary(b, key);
        return;
      case 9: {
        bson::ObjectId oid;
        for (auto& byte : oid.bytes) byte = static_cast<std::uint8_t>(Pick(3) * 0x7F);
        b->AppendObjectId(key, oid);
        return;
      }
      case 10:
        b->AppendBool(key, Pick(2) == 1);
        return;
      case 11: {
        static const std::int64_t kDates[] = {
            std::numeric_limits<std::int64_t>::min(), -1000, -1, 0, 1, 1000,
            std::numeric_limits<std::int64_t>::max()};
        b->AppendDate(key, kDates[Pick(7)]);
        return;
      }
      case 12: {
        static const std::uint64_t kTimestamps[] = {0,
                                                    1,
                                                    2,
                                                    std::uint64_t{1} << 32,
                                                    (std::uint64_t{1} << 32) + 1,
                                                    std::numeric_limits<std::uint64_t>::max()};
        b->AppendTimestamp(key, kTimestamps[Pick(6)]);
        return;
      }
      case 13: {
        static const char* kParts[] = {"", "a", "ab", "b"};
        b->AppendRegex(key, kParts[Pick(4)], kParts[Pick(4)]);
        return;
      }
      case 14: {
        std::string bytes = StringValueBytes(Pick(2) == 0 ? "db.a" : "db.b");
        for (int i = 0; i < 12; ++i) bytes.push_back(static_cast<char>(Pick(2)));
        AppendRaw(b, key, Type::kDbPointer, bytes);
        return;
      }
      case 15:
        AppendRaw(b, key, Type::kCode, StringValueBytes(SmallString()));
        return;
      case 16: {
        std::string code = StringValueBytes(SmallString());
        DocumentBuilder scope;
        if (Pick(2) == 0) scope.AppendInt32("x", Pick(3));
        Document scope_doc = std::move(scope).Finish();
        std::string bytes;
        PutInt32(&bytes, static_cast<std::int32_t>(4 + code.size() + scope_doc.size()));
        bytes.append(code);
        bytes.append(scope_doc.bytes());
        AppendRaw(b, key, Type::kCodeWithScope, bytes);
        return;
      }
      case 17:
      case 18:
      case 19:
      case 20:
        AppendNumber(b, key);
        return;
      case 21:
      case 22: {
        b->OpenDocument(key);
        static const char* kKeys[] = {"a", "b", "ab", ""};
        int n = Pick(4);
        for (int i = 0; i < n; ++i) Append(b, kKeys[Pick(4)], depth + 1);
        b->Close();
        return;
      }
      default: {
        b->OpenArray(key);
        int n = Pick(4);
        for (int i = 0; i < n; ++i) Append(b, std::to_string(i), depth + 1);
        b->Close();
        return;
      }
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string SmallString() {
    static const char kAlphabet[] = {'\0', 'a', 'b', '\x7f', '\x80', '\xff'};
    std::string s;
    int n = Pick(4);
    for (int i = 0; i < n; ++i) s.push_back(kAlphabet[Pick(6)]);
    return s;
  }

  void AppendBinary(DocumentBuilder* b, std::string_view key) {
    static const std::uint8_t kSubtypes[] = {0, 2, 4, 0x80};
    std::uint8_t subtype = kSubtypes[Pick(4)];
    std::string data = SmallString();
    if (subtype == 2) {  // the old binary subtype carries an inner length
      std::string inner;
      PutInt32(&inner, static_cast<std::int32_t>(data.size()));
      data = inner + data;
    }
    b->AppendBinary(key, subtype, data);
  }

  void AppendNumber(DocumentBuilder* b, std::string_view key) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    static const std::int32_t kInts[] = {-3,
                                         -2,
                                         -1,
                                         0,
                                         1,
                                         2,
                                         3,
                                         std::numeric_limits<std::int32_t>::min(),
                                         std::numeric_limits<std::int32_t>::max()};
    static const std::int64_t kLongs[] = {-2,
                                          0,
                                          1,
                                          3,
                                          (std::int64_t{1} << 53),
                                          (std::int64_t{1} << 53) + 1,
                                          -((std::int64_t{1} << 53) + 1),
                                          std::int64_t{1} << 62,
                                          std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max(),
                                          std::numeric_limits<std::int64_t>::max() - 1,
                                          2147483648LL};
    static const double kDoubles[] = {0.0,
                                      -0.0,
                                      0.5,
                                      -0.5,
                                      1.0,
                                      -1.0,
                                      2.0,
                                      3.0,
                                      0.1,
                                      1e300,
                                      -1e300,
                                      5e-324,
                                      -5e-324,
                                      2.2250738585072014e-308,
                                      kNaN,
                                      -kNaN,
                                      kInf,
                                      -kInf,
                                      9007199254740992.0,
                                      9223372036854775808.0,
                                      -9223372036854775808.0,
                                      9223372036854774784.0,
                                      2147483648.0,
                                      -2147483648.0};
    switch (Pick(5)) {
      case 0:
        b->AppendInt32(key, kInts[Pick(9)]);
        return;
      case 1:
        b->AppendInt64(key, kLongs[Pick(12)]);
        return;
      case 2:
        b->AppendDouble(key, kDoubles[Pick(24)]);
        return;
      case 3:
        b->AppendDouble(key, std::uniform_real_distribution<double>(-4, 4)(rng_));
        return;
      default: {
        int special = Pick(8);
        if (special == 0) {
          b->AppendDecimal128(key, {0, 0x7C00000000000000ULL});  // NaN
        } else if (special == 1) {
          b->AppendDecimal128(key, {0, 0x7800000000000000ULL | (Pick(2) ? 1ULL << 63 : 0)});
        } else {
          static const std::uint64_t kCoefficients[] = {0, 1, 2, 3, 5, 15};
          b->AppendDecimal128(key, MakeDecimal(Pick(2) == 1, kCoefficients[Pick(6)], Pick(3) - 1));
        }
        return;
      }
    }
  }

  std::mt19937_64 rng_;
};

ValueView V(const Document& d) { return d.Get("v"); }

template <typename F>
Document Make(F&& append) {
  DocumentBuilder b;
  append(b);
  return std::move(b).Finish();
}

TEST(KeyEncodingTest, RandomValuesOrderExactlyAsCompareValues) {
  RandomValues random(20261130);
  std::vector<Document> values;
  std::vector<std::string> encoded;
  for (int i = 0; i < 700; ++i) {
    values.push_back(random.One());
    encoded.push_back(Encode(V(values.back())));
  }
  int failures = 0;
  for (std::size_t i = 0; i < values.size() && failures < 10; ++i) {
    for (std::size_t j = 0; j < values.size() && failures < 10; ++j) {
      int expected = Sign(bson::CompareValues(V(values[i]), V(values[j])));
      int actual = CompareEncodings(encoded[i], encoded[j]);
      if (expected != actual) {
        ++failures;
        ADD_FAILURE() << values[i].ToJson() << " vs " << values[j].ToJson() << ": CompareValues "
                      << expected << ", encodings " << actual;
      }
    }
  }
}

TEST(KeyEncodingTest, DescendingReversesTheOrderOfRandomValues) {
  RandomValues random(7);
  for (int i = 0; i < 20000; ++i) {
    Document a = random.One();
    Document b = random.One();
    int expected = -Sign(bson::CompareValues(V(a), V(b)));
    ASSERT_EQ(CompareEncodings(Encode(V(a), true), Encode(V(b), true)), expected)
        << a.ToJson() << " vs " << b.ToJson();
  }
}

TEST(KeyEncodingTest, NoEncodingIsAProperPrefixOfAnother) {
  RandomValues random(99);
  std::vector<std::string> encoded;
  for (int i = 0; i < 600; ++i) encoded.push_back(Encode(V(random.One())));
  for (const std::string& a : encoded) {
    for (const std::string& b : encoded) {
      if (a.size() < b.size()) {
        ASSERT_NE(b.compare(0, a.size(), a), 0);
      }
    }
  }
}

TEST(KeyEncodingTest, EncodedLengthFindsWhereEachRandomEncodingEnds) {
  RandomValues random(31);
  for (int i = 0; i < 5000; ++i) {
    const Document value = random.One();
    const std::string encoded = Encode(V(value));
    ASSERT_EQ(EncodedLength(encoded + "trailing bytes"), encoded.size()) << value.ToJson();
    ASSERT_EQ(EncodedLength(encoded.substr(0, encoded.size() - 1)), 0u) << value.ToJson();
  }
  EXPECT_EQ(EncodedLength(""), 0u);
}

TEST(KeyEncodingTest, EqualIntAndDoubleEncodeIdentically) {
  Document i32 = Make([](auto& b) { b.AppendInt32("v", 42); });
  Document i64 = Make([](auto& b) { b.AppendInt64("v", 42); });
  Document dbl = Make([](auto& b) { b.AppendDouble("v", 42.0); });
  Document dec = Make([](auto& b) { b.AppendDecimal128("v", MakeDecimal(false, 42, 0)); });
  EXPECT_EQ(Encode(V(i32)), Encode(V(i64)));
  EXPECT_EQ(Encode(V(i32)), Encode(V(dbl)));
  EXPECT_EQ(Encode(V(i32)), Encode(V(dec)));
}

TEST(KeyEncodingTest, NegativeZeroEncodesAsZero) {
  Document neg = Make([](auto& b) { b.AppendDouble("v", -0.0); });
  Document zero = Make([](auto& b) { b.AppendInt32("v", 0); });
  EXPECT_EQ(Encode(V(neg)), Encode(V(zero)));
}

TEST(KeyEncodingTest, Int64BeyondDoublePrecisionOrdersExactly) {
  std::int64_t big = (std::int64_t{1} << 53) + 1;
  Document exact = Make([&](auto& b) { b.AppendInt64("v", big); });
  Document rounded = Make([&](auto& b) { b.AppendDouble("v", static_cast<double>(big)); });
  EXPECT_GT(CompareEncodings(Encode(V(exact)), Encode(V(rounded))), 0);
  Document max =
      Make([](auto& b) { b.AppendInt64("v", std::numeric_limits<std::int64_t>::max()); });
  Document two63 = Make([](auto& b) { b.AppendDouble("v", 9223372036854775808.0); });
  EXPECT_LT(CompareEncodings(Encode(V(max)), Encode(V(two63))), 0);
}

TEST(KeyEncodingTest, NaNSortsBelowEveryOtherNumber) {
  Document nan =
      Make([](auto& b) { b.AppendDouble("v", std::numeric_limits<double>::quiet_NaN()); });
  Document neg_inf =
      Make([](auto& b) { b.AppendDouble("v", -std::numeric_limits<double>::infinity()); });
  Document null = Make([](auto& b) { b.AppendNull("v"); });
  EXPECT_LT(CompareEncodings(Encode(V(nan)), Encode(V(neg_inf))), 0);
  EXPECT_GT(CompareEncodings(Encode(V(nan)), Encode(V(null))), 0);
}

TEST(KeyEncodingTest, TypesOrderAsMongoDbOrdersThem) {
  std::vector<Document> in_order = {
      Make([](auto& b) { b.AppendMinKey("v"); }),
      Make([](auto& b) { b.AppendUndefined("v"); }),
      Make([](auto& b) { b.AppendNull("v"); }),
      Make([](auto& b) { b.AppendDouble("v", 1e308); }),
      Make([](auto& b) { b.AppendString("v", ""); }),
      Make([](auto& b) { b.AppendDocument("v", bson::DocumentView()); }),
      Make([](auto& b) { b.AppendArray("v", bson::DocumentView()); }),
      Make([](auto& b) { b.AppendBinary("v", 0, ""); }),
      Make([](auto& b) { b.AppendObjectId("v", bson::ObjectId()); }),
      Make([](auto& b) { b.AppendBool("v", false); }),
      Make([](auto& b) { b.AppendDate("v", std::numeric_limits<std::int64_t>::min()); }),
      Make([](auto& b) { b.AppendTimestamp("v", 0); }),
      Make([](auto& b) { b.AppendRegex("v", "", ""); }),
      Make([](auto& b) {
        std::string bytes = StringValueBytes("");
        bytes.append(12, '\0');
        AppendRaw(&b, "v", Type::kDbPointer, bytes);
      }),
      Make([](auto& b) { AppendRaw(&b, "v", Type::kCode, StringValueBytes("")); }),
      Make([](auto& b) {
        std::string code = StringValueBytes("");
        std::string bytes;
        PutInt32(&bytes, static_cast<std::int32_t>(4 + code.size() + 5));
        bytes.append(code);
        bytes.append(bson::DocumentView().bytes());
        AppendRaw(&b, "v", Type::kCodeWithScope, bytes);
      }),
      Make([](auto& b) { b.AppendMaxKey("v"); }),
  };
  for (std::size_t i = 1; i < in_order.size(); ++i) {
    EXPECT_LT(CompareEncodings(Encode(V(in_order[i - 1])), Encode(V(in_order[i]))), 0)
        << in_order[i - 1].ToJson() << " < " << in_order[i].ToJson();
  }
}

TEST(KeyEncodingTest, StringsWithEmbeddedNulOrderByBytesThenLength) {
  Document a = Make([](auto& b) { b.AppendString("v", "a"); });
  Document a_nul = Make([](auto& b) { b.AppendString("v", std::string_view("a\0", 2)); });
  Document a_one = Make([](auto& b) { b.AppendString("v", "a\x01"); });
  EXPECT_LT(CompareEncodings(Encode(V(a)), Encode(V(a_nul))), 0);
  EXPECT_LT(CompareEncodings(Encode(V(a_nul)), Encode(V(a_one))), 0);
}

TEST(KeyEncodingTest, FieldNamesDecideBeforeValues) {
  Document b_small = Make([](auto& b) {
    b.OpenDocument("v");
    b.AppendInt32("b", -5);
    b.Close();
  });
  Document a_big = Make([](auto& b) {
    b.OpenDocument("v");
    b.AppendInt32("a", 5);
    b.Close();
  });
  EXPECT_GT(CompareEncodings(Encode(V(b_small)), Encode(V(a_big))), 0);
}

TEST(KeyEncodingTest, ShorterDocumentSortsFirst) {
  Document one = Make([](auto& b) {
    b.OpenDocument("v");
    b.AppendInt32("a", 1);
    b.Close();
  });
  Document two = Make([](auto& b) {
    b.OpenDocument("v");
    b.AppendInt32("a", 1);
    b.AppendMinKey("b");
    b.Close();
  });
  EXPECT_LT(CompareEncodings(Encode(V(one)), Encode(V(two))), 0);
}

TEST(KeyEncodingTest, CompoundKeysOrderFieldByField) {
  // {a: 1, b: -1}: (1, "z") < (2, "a"), and for equal a, larger b first.
  auto key = [](std::int32_t a, std::string_view b) {
    Document doc = Make([&](auto& builder) {
      builder.AppendInt32("a", a);
      builder.AppendString("b", b);
    });
    std::string out;
    AppendIndexKey(doc.Get("a"), false, &out);
    AppendIndexKey(doc.Get("b"), true, &out);
    return out;
  };
  EXPECT_LT(CompareEncodings(key(1, "z"), key(2, "a")), 0);
  EXPECT_LT(CompareEncodings(key(1, "z"), key(1, "a")), 0);
  EXPECT_LT(CompareEncodings(key(1, "ab"), key(1, "a")), 0);
}

TEST(KeyEncodingTest, DecimalEncodesThroughItsDoubleValue) {
  Document half = Make([](auto& b) { b.AppendDecimal128("v", MakeDecimal(false, 5, -1)); });
  Document dbl = Make([](auto& b) { b.AppendDouble("v", 0.5); });
  EXPECT_EQ(Encode(V(half)), Encode(V(dbl)));
}

TEST(KeyEncodingTest, TypeBracketHoldsExactlyTheEncodingsOfItsCanonicalType) {
  RandomValues random(4242);
  std::vector<Document> values;
  for (int i = 0; i < 600; ++i) values.push_back(random.One());
  for (const Document& bracketed : values) {
    const auto [first, second] = KeyTypeBracket(V(bracketed).type());
    ASSERT_LT(first, second);
    const int rank = bson::CanonicalTypeRank(V(bracketed).type());
    for (const Document& other : values) {
      const std::string encoded = Encode(V(other));
      const bool inside = first <= encoded && encoded < second;
      const bool same_type = bson::CanonicalTypeRank(V(other).type()) == rank;
      ASSERT_EQ(inside, same_type) << other.ToJson() << " in the bracket of " << bracketed.ToJson();
    }
  }
}

TEST(KeyEncodingTest, NumberTypesShareOneBracket) {
  EXPECT_EQ(KeyTypeBracket(Type::kInt32), KeyTypeBracket(Type::kDouble));
  EXPECT_EQ(KeyTypeBracket(Type::kInt64), KeyTypeBracket(Type::kDecimal128));
  EXPECT_EQ(KeyTypeBracket(Type::kSymbol), KeyTypeBracket(Type::kString));
  EXPECT_EQ(KeyTypeBracket(Type::kEod), KeyTypeBracket(Type::kUndefined));
}

TEST(KeyEncodingTest, StringPrefixKeyStartsExactlyTheStringsWithThatPrefix) {
  const std::string prefixes[] = {"", "a", std::string("a\0", 2), "ab", "\xff"};
  const std::string strings[] = {
      "", "a", std::string("a\0", 2), std::string("a\0b", 3), "ab", "abc", "b", "\xff", "\xff\xff"};
  for (const std::string& prefix : prefixes) {
    const std::string key = StringPrefixKey(prefix);
    for (const std::string& s : strings) {
      const std::string encoded = Encode(V(Make([&](auto& b) { b.AppendString("v", s); })));
      EXPECT_EQ(encoded.starts_with(key), s.starts_with(prefix))
          << "prefix of " << s.size() << " bytes: " << prefix.size();
    }
    EXPECT_FALSE(Encode(V(Make([](auto& b) { b.AppendInt32("v", 1); }))).starts_with(key));
  }
}

TEST(KeyEncodingTest, AbsentValueEncodesLikeUndefined) {
  Document undefined = Make([](auto& b) { b.AppendUndefined("v"); });
  EXPECT_EQ(Encode(ValueView()), Encode(V(undefined)));
}

}  // namespace
}  // namespace quarry::storage

namespace quarry::storage {
namespace {

// A collation that ignores ASCII case: its comparison key is the lowercased string, NULs kept.
class CaseFolding final : public bson::StringComparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    return Lower(a).compare(Lower(b));
  }
  void AppendComparisonKey(std::string_view s, std::string* out) const override {
    out->append(Lower(s));
  }
  bool Equals(const bson::StringComparator& other) const override { return &other == this; }

 private:
  static std::string Lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }
};

std::string EncodeCollated(ValueView v, const bson::StringComparator& collator,
                           bool descending = false) {
  std::string out;
  AppendIndexKey(v, descending, &collator, &out);
  return out;
}

TEST(KeyEncodingTest, CollatedEncodingsOrderAsCompareValuesUnderTheCollation) {
  const CaseFolding folding;
  RandomValues random(20261201);
  std::vector<Document> values;
  std::vector<std::string> encoded;
  for (int i = 0; i < 500; ++i) {
    values.push_back(random.One());
    encoded.push_back(EncodeCollated(V(values.back()), folding));
  }
  int failures = 0;
  for (std::size_t i = 0; i < values.size() && failures < 10; ++i) {
    for (std::size_t j = 0; j < values.size() && failures < 10; ++j) {
      const int expected = Sign(bson::CompareValues(V(values[i]), V(values[j]), &folding));
      if (CompareEncodings(encoded[i], encoded[j]) != expected) {
        ++failures;
        ADD_FAILURE() << values[i].ToJson() << " vs " << values[j].ToJson();
      }
      if (encoded[i].size() < encoded[j].size()) {
        EXPECT_NE(encoded[j].compare(0, encoded[i].size(), encoded[i]), 0) << "prefix";
      }
    }
  }
}

TEST(KeyEncodingTest, CollationEqualStringsEncodeAlikeAlsoInsideDocumentsAndArrays) {
  const CaseFolding folding;
  Document lower = Make([](auto& b) {
    b.OpenDocument("v").AppendString("name", "alice").OpenArray("tags").AppendString("0", "x");
    b.Close().Close();
  });
  Document upper = Make([](auto& b) {
    b.OpenDocument("v").AppendString("name", "ALICE").OpenArray("tags").AppendString("0", "X");
    b.Close().Close();
  });
  EXPECT_EQ(EncodeCollated(V(lower), folding), EncodeCollated(V(upper), folding));
  EXPECT_NE(Encode(V(lower)), Encode(V(upper)));
  EXPECT_EQ(EncodeIndexKey(V(lower), &folding), EncodeCollated(V(lower), folding));
}

TEST(KeyEncodingTest, CollatedStringsKeepTheirPlaceAmongTypes) {
  const CaseFolding folding;
  Document number = Make([](auto& b) { b.AppendInt32("v", 1000); });
  Document string = Make([](auto& b) { b.AppendString("v", "A"); });
  Document object = Make([](auto& b) { b.OpenDocument("v").Close(); });
  const std::string s = EncodeCollated(V(string), folding);
  EXPECT_LT(EncodeCollated(V(number), folding), s);
  EXPECT_LT(s, EncodeCollated(V(object), folding));
  auto [first, second] = KeyTypeBracket(Type::kString);
  EXPECT_LE(first, s);
  EXPECT_LT(s, second);
  // Descending inverts the collated bytes as it does the simple ones.
  EXPECT_GT(EncodeCollated(V(number), folding, true), EncodeCollated(V(string), folding, true));
}

}  // namespace
}  // namespace quarry::storage
