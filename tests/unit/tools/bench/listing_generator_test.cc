// The listing generator: deterministic, valid, listing-shaped, sized on request, and with text
// that compresses as real text does.
#include "tools/bench/listing_generator.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "tools/bench/vocabulary_internal.h"

namespace quarry::tools::bench {
namespace {

DocumentSet Listings(std::uint64_t seed, std::size_t count, std::size_t target_bytes = 0) {
  ListingGenerator generator({.seed = seed, .target_bytes = target_bytes});
  return GenerateCount(generator, count);
}

std::string Utf8Field(const bson_t& doc, const char* path) {
  bson_iter_t iter;
  bson_iter_t field;
  if (!bson_iter_init(&iter, &doc) || !bson_iter_find_descendant(&iter, path, &field) ||
      !BSON_ITER_HOLDS_UTF8(&field)) {
    return "<missing>";
  }
  return bson_iter_utf8(&field, nullptr);
}

bson_type_t FieldType(const bson_t& doc, const char* path) {
  bson_iter_t iter;
  bson_iter_t field;
  if (!bson_iter_init(&iter, &doc) || !bson_iter_find_descendant(&iter, path, &field)) {
    return BSON_TYPE_EOD;
  }
  return bson_iter_type(&field);
}

TEST(ListingGeneratorTest, SameSeedGivesTheSameBytes) {
  DocumentSet a = Listings(7, 50);
  DocumentSet b = Listings(7, 50);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(std::ranges::equal(a.Bytes(i), b.Bytes(i))) << "document " << i;
  }
}

TEST(ListingGeneratorTest, DifferentSeedsGiveDifferentListings) {
  DocumentSet a = Listings(1, 5);
  DocumentSet b = Listings(2, 5);
  EXPECT_FALSE(std::ranges::equal(a.Bytes(0), b.Bytes(0)));
}

TEST(ListingGeneratorTest, ListingsAreValidBsonWithNestedAddressArraysAndDates) {
  DocumentSet set = Listings(3, 200);
  for (std::size_t i = 0; i < set.size(); ++i) {
    bson_t doc;
    set.View(i, &doc);
    std::size_t offset = 0;
    ASSERT_TRUE(bson_validate(&doc, BSON_VALIDATE_UTF8, &offset)) << "document " << i;
    EXPECT_EQ(FieldType(doc, "_id"), BSON_TYPE_OID);
    EXPECT_EQ(FieldType(doc, "description"), BSON_TYPE_UTF8);
    EXPECT_EQ(FieldType(doc, "address.location.coordinates"), BSON_TYPE_ARRAY);
    EXPECT_EQ(FieldType(doc, "address.location.coordinates.1"), BSON_TYPE_DOUBLE);
    EXPECT_EQ(Utf8Field(doc, "address.location.type"), "Point");
    EXPECT_EQ(FieldType(doc, "host.host_is_superhost"), BSON_TYPE_BOOL);
    EXPECT_EQ(FieldType(doc, "amenities"), BSON_TYPE_ARRAY);
    EXPECT_EQ(FieldType(doc, "amenities.0"), BSON_TYPE_UTF8);
    EXPECT_EQ(FieldType(doc, "last_scraped"), BSON_TYPE_DATE_TIME);
    EXPECT_EQ(FieldType(doc, "price"), BSON_TYPE_DOUBLE);
    EXPECT_EQ(FieldType(doc, "accommodates"), BSON_TYPE_INT32);
    EXPECT_EQ(FieldType(doc, "reviews"), BSON_TYPE_ARRAY);
  }
}

TEST(ListingGeneratorTest, SomeListingsHaveReviewsWithComments) {
  DocumentSet set = Listings(4, 100);
  int with_reviews = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    bson_t doc;
    set.View(i, &doc);
    if (FieldType(doc, "reviews.0.comments") == BSON_TYPE_UTF8) ++with_reviews;
  }
  EXPECT_GT(with_reviews, 50);
  EXPECT_LT(with_reviews, 100);
}

TEST(ListingGeneratorTest, IdsIncreaseWithPosition) {
  DocumentSet set = Listings(5, 100);
  bson_oid_t previous{};
  for (std::size_t i = 0; i < set.size(); ++i) {
    bson_t doc;
    set.View(i, &doc);
    bson_iter_t iter;
    ASSERT_TRUE(bson_iter_init_find(&iter, &doc, "_id"));
    const bson_oid_t* id = bson_iter_oid(&iter);
    if (i > 0) {
      EXPECT_GT(bson_oid_compare(id, &previous), 0);
    }
    bson_oid_copy(id, &previous);
  }
}

TEST(ListingGeneratorTest, NaturalSizesVaryAroundAFewKilobytes) {
  DocumentSet set = Listings(6, 500);
  std::size_t smallest = SIZE_MAX;
  std::size_t largest = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    smallest = std::min(smallest, set.Bytes(i).size());
    largest = std::max(largest, set.Bytes(i).size());
  }
  double average = static_cast<double>(set.bytes()) / static_cast<double>(set.size());
  EXPECT_GT(average, 2'000);
  EXPECT_LT(average, 10'000);
  EXPECT_LT(smallest * 2, largest);
}

TEST(ListingGeneratorTest, SizedListingsHaveExactlyTheTargetSize) {
  for (std::size_t target : {1'000, 1'500, 4'096}) {
    DocumentSet set = Listings(8, 100, target);
    for (std::size_t i = 0; i < set.size(); ++i) {
      ASSERT_EQ(set.Bytes(i).size(), target) << "document " << i << " for target " << target;
    }
  }
}

TEST(ListingGeneratorTest, TargetBelowTheFixedFieldsGivesTheSmallestListing) {
  DocumentSet set = Listings(9, 20, 100);
  for (std::size_t i = 0; i < set.size(); ++i) {
    bson_t doc;
    set.View(i, &doc);
    EXPECT_EQ(Utf8Field(doc, "description"), "");
    EXPECT_LT(set.Bytes(i).size(), 1'000u);
  }
}

TEST(ListingGeneratorTest, TextIsMadeOfVocabularyWords) {
  std::set<std::string> vocabulary;
  auto add_words = [&](std::string_view text) {
    std::string word;
    for (char c : std::string(text) + " ") {
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '\'') {
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else if (!word.empty()) {
        vocabulary.insert(word);
        word.clear();
      }
    }
  };
  for (std::string_view w : TextWords()) add_words(w);
  for (std::string_view p : TextPhrases()) add_words(p);

  DocumentSet set = Listings(10, 30);
  for (std::size_t i = 0; i < set.size(); ++i) {
    bson_t doc;
    set.View(i, &doc);
    std::string text = Utf8Field(doc, "description");
    ASSERT_FALSE(text.empty());
    std::string word;
    for (char c : text + " ") {
      if (std::isalpha(static_cast<unsigned char>(c))) {
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else if (!word.empty()) {
        EXPECT_TRUE(vocabulary.count(word)) << "'" << word << "' in document " << i;
        word.clear();
      }
    }
  }
}

// The network benchmark's targets rest on this: real listings compress 3-5x with general
// purpose compressors, random letters about 1.5x, a repeated document 100x.
TEST(ListingGeneratorTest, ListingsCompressLikeRealTextWithZlib) {
  ListingGenerator generator({.seed = 11});
  DocumentSet set = GenerateBytes(generator, 1'000'000);
  std::vector<std::uint8_t> input;
  for (std::size_t i = 0; i < set.size(); ++i) {
    auto bytes = set.Bytes(i);
    input.insert(input.end(), bytes.begin(), bytes.end());
  }
  uLongf compressed_size = compressBound(static_cast<uLong>(input.size()));
  std::vector<Bytef> compressed(compressed_size);
  ASSERT_EQ(compress2(compressed.data(), &compressed_size, input.data(),
                      static_cast<uLong>(input.size()), Z_DEFAULT_COMPRESSION),
            Z_OK);
  double ratio = static_cast<double>(input.size()) / static_cast<double>(compressed_size);
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 8.0);
}

}  // namespace
}  // namespace quarry::tools::bench
