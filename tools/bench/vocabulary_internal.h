// Word lists for the listing generator: the vocabulary of holiday-rental listings and their
// reviews. Lists are ordered from common to rare where the generator draws with Zipf weights.
#pragma once

#include <span>
#include <string_view>

namespace quarry::tools::bench {

struct City {
  std::string_view name;
  std::string_view country;
  std::string_view country_code;
  double latitude;
  double longitude;
};

std::span<const std::string_view> TextWords();      // common to rare
std::span<const std::string_view> TextPhrases();    // set phrases listings repeat
std::span<const std::string_view> Amenities();      // common to rare
std::span<const std::string_view> PropertyTypes();  // common to rare
std::span<const std::string_view> RoomTypes();
std::span<const std::string_view> BedTypes();
std::span<const std::string_view> CancellationPolicies();
std::span<const std::string_view> NameAdjectives();
std::span<const std::string_view> FirstNames();
std::span<const std::string_view> Neighbourhoods();
std::span<const std::string_view> Streets();
std::span<const City> Cities();

}  // namespace quarry::tools::bench
