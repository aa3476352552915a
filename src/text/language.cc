#include "text/language.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "text/stop_words.h"

namespace quarry::text {
namespace {

// mongod's languages (text index version 3), each with Snowball's stemmer of that name.
constexpr std::array kLanguages = {
    Language{"danish", "danish", IsDanishStopWord},
    Language{"dutch", "dutch", IsDutchStopWord},
    Language{"english", "english", IsEnglishStopWord, true},
    Language{"finnish", "finnish", IsFinnishStopWord},
    Language{"french", "french", IsFrenchStopWord},
    Language{"german", "german", IsGermanStopWord},
    Language{"hungarian", "hungarian", IsHungarianStopWord},
    Language{"italian", "italian", IsItalianStopWord},
    Language{"norwegian", "norwegian", IsNorwegianStopWord},
    Language{"portuguese", "portuguese", IsPortugueseStopWord},
    Language{"romanian", "romanian", IsRomanianStopWord},
    Language{"russian", "russian", IsRussianStopWord},
    Language{"spanish", "spanish", IsSpanishStopWord},
    Language{"swedish", "swedish", IsSwedishStopWord},
    Language{"turkish", "turkish", IsTurkishStopWord, false, true},
    Language{"none", "", nullptr},
};

struct Alias {
  std::string_view code;
  std::string_view name;
};
constexpr std::array kAliases = {
    Alias{"da", "danish"},     Alias{"nl", "dutch"},    Alias{"en", "english"},
    Alias{"fi", "finnish"},    Alias{"fr", "french"},   Alias{"de", "german"},
    Alias{"hu", "hungarian"},  Alias{"it", "italian"},  Alias{"nb", "norwegian"},
    Alias{"pt", "portuguese"}, Alias{"ro", "romanian"}, Alias{"ru", "russian"},
    Alias{"es", "spanish"},    Alias{"sv", "swedish"},  Alias{"tr", "turkish"},
};

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
