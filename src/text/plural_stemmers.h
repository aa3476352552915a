// The light stemmers custom analyzers offer besides Snowball's: Lucene's English minimal stemmer
// (Harman's "S-stemmer") and its Spanish plural stemmer. Both read UTF-16 units, as Lucene's do.
#pragma once

#include <string>
#include <string_view>

namespace quarry::text {

// "cats" -> "cat", "ponies" -> "pony"; "glass", "focus", "toes" stay.
std::string EnglishMinimalStem(std::string_view word);

// "casas" -> "casa", "leyes" -> "ley", "voces" -> "voz". As Lucene's, it drops the accents of
// lowercase vowels whatever else it does, and leaves words that are plural and singular alike.
std::string SpanishPluralStem(std::string_view word);

}  // namespace quarry::text
