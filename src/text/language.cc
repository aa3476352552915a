#include "text/language.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "text/stop_words.h"

namespace quarry::text {
namespace {

// mongod analyzes fifteen more languages, each with its own stop words; Quarry has a word list
// for English only, and a language without one would match and score differently, so it is
// refused rather than analyzed half-way.
constexpr std::array kLanguages = {
    Language{"english", "english", IsEnglishStopWord, true},
    Language{"none", "", nullptr, false},
};

struct Alias {
  std::string_view code;
  std::string_view name;
};
constexpr std::array kAliases = {Alias{"en", "english"}};

std::string Lowercase(std::string_view name) {
  std::string lowered(name);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lowered;
}

}  // namespace

const Language* FindLanguage(std::string_view name) {
  std::string lowered = Lowercase(name);
  for (const Alias& alias : kAliases) {
    if (alias.code == lowered) lowered = alias.name;
  }
  auto it = std::ranges::find(kLanguages, std::string_view(lowered), &Language::name);
  return it == kLanguages.end() ? nullptr : &*it;
}

}  // namespace quarry::text
