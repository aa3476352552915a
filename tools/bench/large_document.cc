#include "tools/bench/large_document.h"

#include <cstdio>
#include <random>

namespace quarry::tools::bench {
namespace {

constexpr const char* kFirst[] = {"Ana",   "Bruno", "Chen", "Dara", "Elif",
                                  "Farid", "Greta", "Hugo", "Ines", "Jonas"};
constexpr const char* kLast[] = {"Silva", "Keller", "Nakamura", "Okafor",
                                 "Rossi", "Novak",  "Haddad",   "Larsen"};
constexpr const char* kCities[] = {"Lisbon", "Zurich", "Osaka",  "Lagos",
                                   "Turin",  "Prague", "Beirut", "Aarhus"};
constexpr const char* kTags[] = {"vip",        "new",    "returning", "wholesale",
                                 "newsletter", "mobile", "gift",      "b2b"};
constexpr const char* kItems[] = {"lamp", "chair", "kettle", "desk", "rug",
                                  "mug",  "shelf", "clock",  "vase"};

template <std::size_t N>
const char* Pick(std::mt19937_64& rng, const char* const (&words)[N]) {
  return words[rng() % N];
}

void AppendRecord(std::mt19937_64& rng, std::uint64_t index, std::string* out) {
  char buffer[512];
  const char* first = Pick(rng, kFirst);
  const char* last = Pick(rng, kLast);
  std::snprintf(
      buffer, sizeof buffer,
      "{\"id\": %llu, \"name\": \"%s %s\", \"email\": \"%s.%s%llu@example.com\", \"age\": %d, "
      "\"active\": %s, \"address\": {\"street\": \"%d %s Street\", \"city\": \"%s\", \"zip\": "
      "\"%05d\"}, "
      "\"tags\": [",
      static_cast<unsigned long long>(index), first, last, first, last,
      static_cast<unsigned long long>(index % 1000), 18 + static_cast<int>(rng() % 70),
      rng() % 2 ? "true" : "false", 1 + static_cast<int>(rng() % 300), Pick(rng, kLast),
      Pick(rng, kCities), static_cast<int>(rng() % 100000));
  *out += buffer;
  const int tags = 1 + static_cast<int>(rng() % 4);
  for (int t = 0; t < tags; ++t) {
    *out += t > 0 ? ", \"" : "\"";
    *out += Pick(rng, kTags);
    *out += "\"";
  }
  *out += "], \"orders\": [";
  const int orders = static_cast<int>(rng() % 4);
  for (int o = 0; o < orders; ++o) {
    std::snprintf(buffer, sizeof buffer, "%s{\"item\": \"%s\", \"quantity\": %d, \"price\": %.2f}",
                  o > 0 ? ", " : "", Pick(rng, kItems), 1 + static_cast<int>(rng() % 5),
                  static_cast<double>(rng() % 50000) / 100.0);
    *out += buffer;
  }
  std::snprintf(buffer, sizeof buffer, "], \"scores\": [%.3f, %.3f, %.3f]}",
                static_cast<double>(rng() % 100000) / 1000.0,
                static_cast<double>(rng() % 100000) / 1000.0,
                static_cast<double>(rng() % 100000) / 1000.0);
  *out += buffer;
}

}  // namespace

std::string LargeJsonDocument(const std::string& id, std::size_t bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string json = "{\"_id\": \"" + id + "\", \"records\": [";
  json.reserve(bytes + 1024);
  for (std::uint64_t index = 0; json.size() < bytes; ++index) {
    if (index > 0) json += ", ";
    AppendRecord(rng, index, &json);
  }
  json += "]}";
  return json;
}

}  // namespace quarry::tools::bench
