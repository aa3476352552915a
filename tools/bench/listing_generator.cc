// ListingGenerator: builds each listing field by field from the seeded random source. Every
// choice goes through SeededRandom, so a seed always yields the same bytes.
#include "tools/bench/listing_generator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "tools/bench/random_internal.h"
#include "tools/bench/record_generator.h"
#include "tools/bench/vocabulary_internal.h"

namespace quarry::tools::bench {
namespace {

constexpr std::int64_t kScrapedMillis = 1'709'251'200'000;  // 1 March 2024, 00:00 UTC
constexpr std::int64_t kDayMillis = 86'400'000;
// The description element costs its type byte, "description\0", the length and the terminator.
constexpr std::size_t kDescriptionOverhead = 1 + 12 + 4 + 1;

void AppendUtf8(bson_t* out, std::string_view key, std::string_view value) {
  bson_append_utf8(out, key.data(), static_cast<int>(key.size()), value.data(),
                   static_cast<int>(value.size()));
}

void AppendInt32(bson_t* out, std::string_view key, std::int64_t value) {
  bson_append_int32(out, key.data(), static_cast<int>(key.size()),
                    static_cast<std::int32_t>(value));
}

// Whole currency units, as listing prices are.
double Price(SeededRandom& random, double low, double high) {
  return std::round(random.RealBetween(low, high));
}

}  // namespace

struct ListingGenerator::State {
  explicit State(ListingOptions o)
      : options(o),
        random(o.seed),
        words(TextWords().size(), 2.7),
        property_types(PropertyTypes().size(), 1.0),
        room_types(RoomTypes().size(), 1.0),
        bed_types(BedTypes().size(), 0.3) {}

  // Sentences of vocabulary words and set phrases, about `word_count` words in all.
  std::string Text(std::int64_t word_count) {
    std::string text;
    std::int64_t written = 0;
    bool sentence_start = true;
    std::int64_t sentence_left = random.Between(5, 16);
    while (written < word_count) {
      std::string_view token;
      if (random.Chance(0.08)) {
        token = random.Pick(TextPhrases());
        written += 4;
      } else {
        token = TextWords()[words.Pick(random)];
        written += 1;
      }
      if (!text.empty()) text += ' ';
      std::size_t start = text.size();
      text += token;
      if (sentence_start) {
        text[start] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[start])));
        sentence_start = false;
      }
      if (--sentence_left <= 0 || written >= word_count) {
        text += random.Chance(0.1) ? '!' : '.';
        sentence_start = true;
        sentence_left = random.Between(5, 16);
      } else if (random.Chance(0.07)) {
        text += ',';
      }
    }
    return text;
  }

  std::string Digits(std::int64_t low, std::int64_t high) {
    return std::to_string(random.Between(low, high));
  }

  void AppendAmenities(bson_t* out, std::size_t max_count) {
    bson_t array;
    BSON_APPEND_ARRAY_BEGIN(out, "amenities", &array);
    std::span<const std::string_view> all = Amenities();
    std::size_t count = 0;
    for (std::size_t rank = 0; rank < all.size() && count < max_count; ++rank) {
      if (!random.Chance(std::max(0.04, 0.95 * std::exp(-static_cast<double>(rank) / 22.0)))) {
        continue;
      }
      char key[16];
      const char* key_ptr;
      bson_uint32_to_string(static_cast<std::uint32_t>(count++), &key_ptr, key, sizeof key);
      bson_append_utf8(&array, key_ptr, -1, all[rank].data(), static_cast<int>(all[rank].size()));
    }
    bson_append_array_end(out, &array);
  }

  void AppendHost(bson_t* out, const City& city, std::string_view neighbourhood) {
    bson_t host;
    BSON_APPEND_DOCUMENT_BEGIN(out, "host", &host);
    std::string host_id = Digits(100'000, 299'999'999);
    AppendUtf8(&host, "host_id", host_id);
    AppendUtf8(&host, "host_url", "https://www.example-stays.com/users/show/" + host_id);
    AppendUtf8(&host, "host_name", random.Pick(FirstNames()));
    AppendUtf8(&host, "host_location", std::string(city.name) + ", " + std::string(city.country));
    AppendUtf8(&host, "host_about", Text(random.Between(0, 45)));
    static constexpr std::string_view kResponseTimes[] = {"within an hour", "within a few hours",
                                                          "within a day", "a few days or more"};
    AppendUtf8(&host, "host_response_time", random.Pick(kResponseTimes));
    AppendUtf8(&host, "host_picture_url",
               "https://a0.example-cdn.com/im/users/" + host_id + "/profile_pic/" +
                   Digits(1'300'000'000, 1'700'000'000) +
                   "/original.jpg?aki_policy=profile_x_medium");
    AppendUtf8(&host, "host_neighbourhood", neighbourhood);
    AppendInt32(&host, "host_response_rate", random.Between(70, 100));
    BSON_APPEND_BOOL(&host, "host_is_superhost", random.Chance(0.3));
    BSON_APPEND_BOOL(&host, "host_has_profile_pic", random.Chance(0.97));
    BSON_APPEND_BOOL(&host, "host_identity_verified", random.Chance(0.6));
    std::int64_t listings = random.Chance(0.8) ? random.Between(1, 3) : random.Between(4, 120);
    AppendInt32(&host, "host_listings_count", listings);
    AppendInt32(&host, "host_total_listings_count", listings);
    bson_t verifications;
    BSON_APPEND_ARRAY_BEGIN(&host, "host_verifications", &verifications);
    static constexpr const char* kVerifications[] = {
        "email",  "phone",         "reviews",   "jumio", "offline_government_id",
        "selfie", "government_id", "work_email"};
    int count = 0;
    for (const char* v : kVerifications) {
      if (count < 2 || random.Chance(0.45)) {
        char key[16];
        const char* key_ptr;
        bson_uint32_to_string(static_cast<std::uint32_t>(count++), &key_ptr, key, sizeof key);
        bson_append_utf8(&verifications, key_ptr, -1, v, -1);
      }
    }
    bson_append_array_end(&host, &verifications);
    bson_append_document_end(out, &host);
  }

  void AppendAddress(bson_t* out, const City& city, std::string_view neighbourhood) {
    bson_t address;
    BSON_APPEND_DOCUMENT_BEGIN(out, "address", &address);
    AppendUtf8(&address, "street",
               std::string(random.Pick(Streets())) + ", " + std::string(city.name) + ", " +
                   std::string(city.country));
    AppendUtf8(&address, "suburb", neighbourhood);
    AppendUtf8(&address, "government_area", neighbourhood);
    AppendUtf8(&address, "market", city.name);
    AppendUtf8(&address, "country", city.country);
    AppendUtf8(&address, "country_code", city.country_code);
    AppendLocation(&address, city);
    bson_append_document_end(out, &address);
  }

  void AppendReviews(bson_t* out, std::int64_t count, std::string_view listing_id) {
    bson_t reviews;
    BSON_APPEND_ARRAY_BEGIN(out, "reviews", &reviews);
    for (std::int64_t i = 0; i < count; ++i) {
      char key[16];
      const char* key_ptr;
      bson_uint32_to_string(static_cast<std::uint32_t>(i), &key_ptr, key, sizeof key);
      bson_t review;
      bson_append_document_begin(&reviews, key_ptr, -1, &review);
      AppendUtf8(&review, "_id", Digits(10'000'000, 599'999'999));
      BSON_APPEND_DATE_TIME(&review, "date",
                            kScrapedMillis - random.Between(1, 2'000) * kDayMillis);
      AppendUtf8(&review, "listing_id", listing_id);
      AppendUtf8(&review, "reviewer_id", Digits(100'000, 299'999'999));
      AppendUtf8(&review, "reviewer_name", random.Pick(FirstNames()));
      AppendUtf8(&review, "comments", Text(random.Between(8, 70)));
      bson_append_document_end(&reviews, &review);
    }
    bson_append_array_end(out, &reviews);
  }

  // A listing as a rental site exports it: every section, 0-8 reviews.
  void AppendFullListing(bson_t* out) {
    bson_oid_t id;
    MakeObjectId(options.seed, index, &id);
    BSON_APPEND_OID(out, "_id", &id);
    std::string listing_id = std::to_string(10'000'000 + index * 7 + random.Next() % 7);
    AppendUtf8(out, "listing_url", "https://www.example-stays.com/rooms/" + listing_id);
    const City& city = random.Pick(Cities());
    std::string_view neighbourhood = random.Pick(Neighbourhoods());
    std::string_view property_type = PropertyTypes()[property_types.Pick(random)];
    AppendUtf8(out, "name", ListingName(property_type, neighbourhood));
    AppendUtf8(out, "summary", Text(random.Between(15, 50)));
    if (random.Chance(0.7)) AppendUtf8(out, "space", Text(random.Between(10, 70)));
    AppendUtf8(out, "description", Text(random.Between(40, 160)));
    if (random.Chance(0.5)) {
      AppendUtf8(out, "neighborhood_overview", Text(random.Between(10, 50)));
    }
    if (random.Chance(0.5)) AppendUtf8(out, "transit", Text(random.Between(10, 40)));
    if (random.Chance(0.6)) AppendUtf8(out, "house_rules", Text(random.Between(5, 30)));
    AppendUtf8(out, "property_type", property_type);
    AppendUtf8(out, "room_type", RoomTypes()[room_types.Pick(random)]);
    AppendUtf8(out, "bed_type", BedTypes()[bed_types.Pick(random)]);
    static constexpr std::int64_t kMinimumNights[] = {1, 1, 1, 2, 2, 3, 4, 5, 7, 30};
    static constexpr std::int64_t kMaximumNights[] = {30, 60, 90, 180, 365, 1125, 1125};
    AppendInt32(out, "minimum_nights", random.Pick(kMinimumNights));
    AppendInt32(out, "maximum_nights", random.Pick(kMaximumNights));
    AppendUtf8(out, "cancellation_policy", random.Pick(CancellationPolicies()));
    BSON_APPEND_DATE_TIME(out, "last_scraped", kScrapedMillis);
    BSON_APPEND_DATE_TIME(out, "calendar_last_scraped", kScrapedMillis);
    std::int64_t review_count = random.Between(0, 8);
    std::int64_t number_of_reviews = review_count == 0 ? 0 : review_count + random.Between(0, 200);
    if (number_of_reviews > 0) {
      BSON_APPEND_DATE_TIME(out, "first_review",
                            kScrapedMillis - random.Between(400, 2'500) * kDayMillis);
      BSON_APPEND_DATE_TIME(out, "last_review",
                            kScrapedMillis - random.Between(1, 400) * kDayMillis);
    }
    AppendRooms(out);
    AppendInt32(out, "number_of_reviews", number_of_reviews);
    AppendAmenities(out, 60);
    double price = Price(random, 25, 450);
    BSON_APPEND_DOUBLE(out, "price", price);
    if (random.Chance(0.4)) BSON_APPEND_DOUBLE(out, "weekly_price", std::round(price * 6.3));
    BSON_APPEND_DOUBLE(out, "security_deposit", Price(random, 0, 500));
    BSON_APPEND_DOUBLE(out, "cleaning_fee", Price(random, 0, 120));
    BSON_APPEND_DOUBLE(out, "extra_people", Price(random, 0, 40));
    AppendInt32(out, "guests_included", random.Between(1, 4));
    AppendImages(out);
    AppendHost(out, city, neighbourhood);
    AppendAddress(out, city, neighbourhood);
    AppendAvailability(out);
    if (number_of_reviews > 0) AppendReviewScores(out);
    AppendReviews(out, review_count, listing_id);
  }

  // The fields a listing page shows first, with the description cut or padded so the whole
  // document is options.target_bytes long (when the other fields leave room for it).
  void AppendCompactListing(bson_t* out) {
    bson_oid_t id;
    MakeObjectId(options.seed, index, &id);
    BSON_APPEND_OID(out, "_id", &id);
    const City& city = random.Pick(Cities());
    std::string_view neighbourhood = random.Pick(Neighbourhoods());
    std::string_view property_type = PropertyTypes()[property_types.Pick(random)];
    AppendUtf8(out, "name", ListingName(property_type, neighbourhood));

    // Everything after the description goes to `tail` first, so the description can be given
    // exactly the bytes left over.
    bson_t tail = BSON_INITIALIZER;
    AppendUtf8(&tail, "property_type", property_type);
    AppendUtf8(&tail, "room_type", RoomTypes()[room_types.Pick(random)]);
    AppendRooms(&tail);
    AppendAmenities(&tail, 6);
    BSON_APPEND_DOUBLE(&tail, "price", Price(random, 25, 450));
    BSON_APPEND_DATE_TIME(&tail, "last_scraped", kScrapedMillis);
    bson_t host;
    BSON_APPEND_DOCUMENT_BEGIN(&tail, "host", &host);
    AppendUtf8(&host, "host_id", Digits(100'000, 299'999'999));
    AppendUtf8(&host, "host_name", random.Pick(FirstNames()));
    BSON_APPEND_BOOL(&host, "host_is_superhost", random.Chance(0.3));
    bson_append_document_end(&tail, &host);
    bson_t address;
    BSON_APPEND_DOCUMENT_BEGIN(&tail, "address", &address);
    AppendUtf8(&address, "market", city.name);
    AppendUtf8(&address, "country_code", city.country_code);
    AppendLocation(&address, city);
    bson_append_document_end(&tail, &address);

    // tail.len counts its own 5 bytes of framing, which the concatenation drops.
    std::size_t fixed = out->len + (tail.len - 5) + kDescriptionOverhead;
    std::size_t wanted = options.target_bytes > fixed ? options.target_bytes - fixed : 0;
    std::string description;
    while (description.size() < wanted) {
      if (!description.empty()) description += ' ';
      description += Text(static_cast<std::int64_t>((wanted - description.size()) / 6 + 1));
    }
    description.resize(wanted);
    AppendUtf8(out, "description", description);
    bson_concat(out, &tail);
    bson_destroy(&tail);
  }

  std::string ListingName(std::string_view property_type, std::string_view neighbourhood) {
    std::string name = std::string(random.Pick(NameAdjectives())) + " " +
                       std::string(property_type) + " in " + std::string(neighbourhood);
    if (random.Chance(0.4)) name += " near " + std::string(random.Pick(Streets()));
    return name;
  }

  void AppendRooms(bson_t* out) {
    std::int64_t accommodates = random.Between(1, 10);
    AppendInt32(out, "accommodates", accommodates);
    AppendInt32(out, "bedrooms", std::max<std::int64_t>(1, accommodates / 2));
    AppendInt32(out, "beds", std::max<std::int64_t>(1, accommodates - random.Between(0, 2)));
    BSON_APPEND_DOUBLE(out, "bathrooms", 1.0 + 0.5 * static_cast<double>(random.Between(0, 4)));
  }

  void AppendImages(bson_t* out) {
    bson_t images;
    BSON_APPEND_DOCUMENT_BEGIN(out, "images", &images);
    char picture[128];
    std::snprintf(picture, sizeof picture,
                  "https://a0.example-cdn.com/im/pictures/%016llx.jpg?aki_policy=large",
                  static_cast<unsigned long long>(random.Next()));
    BSON_APPEND_UTF8(&images, "thumbnail_url", "");
    BSON_APPEND_UTF8(&images, "medium_url", "");
    BSON_APPEND_UTF8(&images, "picture_url", picture);
    BSON_APPEND_UTF8(&images, "xl_picture_url", "");
    bson_append_document_end(out, &images);
  }

  void AppendAvailability(bson_t* out) {
    bson_t availability;
    BSON_APPEND_DOCUMENT_BEGIN(out, "availability", &availability);
    std::int64_t a30 = random.Between(0, 30);
    std::int64_t a60 = a30 + random.Between(0, 30);
    std::int64_t a90 = a60 + random.Between(0, 30);
    AppendInt32(&availability, "availability_30", a30);
    AppendInt32(&availability, "availability_60", a60);
    AppendInt32(&availability, "availability_90", a90);
    AppendInt32(&availability, "availability_365", a90 + random.Between(0, 275));
    bson_append_document_end(out, &availability);
  }

  void AppendReviewScores(bson_t* out) {
    bson_t scores;
    BSON_APPEND_DOCUMENT_BEGIN(out, "review_scores", &scores);
    for (const char* key :
         {"review_scores_accuracy", "review_scores_cleanliness", "review_scores_checkin",
          "review_scores_communication", "review_scores_location", "review_scores_value"}) {
      AppendInt32(&scores, key, random.Between(7, 10));
    }
    AppendInt32(&scores, "review_scores_rating", random.Between(70, 100));
    bson_append_document_end(out, &scores);
  }

  void AppendLocation(bson_t* out, const City& city) {
    bson_t location;
    BSON_APPEND_DOCUMENT_BEGIN(out, "location", &location);
    BSON_APPEND_UTF8(&location, "type", "Point");
    bson_t coordinates;
    BSON_APPEND_ARRAY_BEGIN(&location, "coordinates", &coordinates);
    BSON_APPEND_DOUBLE(&coordinates, "0", city.longitude + random.RealBetween(-0.08, 0.08));
    BSON_APPEND_DOUBLE(&coordinates, "1", city.latitude + random.RealBetween(-0.08, 0.08));
    bson_append_array_end(&location, &coordinates);
    BSON_APPEND_BOOL(&location, "is_location_exact", random.Chance(0.7));
    bson_append_document_end(out, &location);
  }

  ListingOptions options;
  SeededRandom random;
  ZipfPicker words;  // common words far more often than rare ones, as in real text
  ZipfPicker property_types;
  ZipfPicker room_types;
  ZipfPicker bed_types;
  std::uint64_t index = 0;
};

ListingGenerator::ListingGenerator(ListingOptions options)
    : state_(std::make_unique<State>(options)) {}

ListingGenerator::~ListingGenerator() = default;

void ListingGenerator::Next(bson_t* out) {
  if (state_->options.target_bytes > 0) {
    state_->AppendCompactListing(out);
  } else {
    state_->AppendFullListing(out);
  }
  ++state_->index;
}

}  // namespace quarry::tools::bench
