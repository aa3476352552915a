#include "text/analyzer.h"

#include <libstemmer.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

#include <cstdint>
#include <map>
#include <memory>

namespace quarry::text {
namespace {

constexpr UChar32 kApostrophe = 0x27;

bool IsDelimiter(UChar32 c, const Language& language) {
  if (c == kApostrophe && language.apostrophe_in_words) return false;
  return u_hasBinaryProperty(c, UCHAR_WHITE_SPACE) || u_hasBinaryProperty(c, UCHAR_DASH) ||
         u_hasBinaryProperty(c, UCHAR_HYPHEN) || u_hasBinaryProperty(c, UCHAR_QUOTATION_MARK) ||
         u_hasBinaryProperty(c, UCHAR_TERMINAL_PUNCTUATION) ||
         u_hasBinaryProperty(c, UCHAR_PATTERN_SYNTAX) || u_hasBinaryProperty(c, UCHAR_S_TERM);
}

bool IsDiacritic(UChar32 c) {
  return u_hasBinaryProperty(c, UCHAR_DIACRITIC) || u_charType(c) == U_NON_SPACING_MARK;
}

void AppendUtf8(UChar32 c, std::string* out) {
  char bytes[U8_MAX_LENGTH];
  std::int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, c);
  out->append(bytes, static_cast<std::size_t>(length));
}

UChar32 Lower(UChar32 c) { return u_foldCase(c, U_FOLD_CASE_DEFAULT); }

UChar32 Lower(UChar32 c, const Language& language) {
  return u_foldCase(c, language.turkish_case ? U_FOLD_CASE_EXCLUDE_SPECIAL_I : U_FOLD_CASE_DEFAULT);
}

// Appends `c` without its diacritics: nothing for a mark, the base letter for a precomposed one.
void AppendStripped(UChar32 c, std::string* out) {
  if (IsDiacritic(c)) return;
  UErrorCode status = U_ZERO_ERROR;
  static const UNormalizer2* const nfd = unorm2_getNFDInstance(&status);
  UChar decomposed[32];
  const std::int32_t length =
      nfd == nullptr ? -1 : unorm2_getDecomposition(nfd, c, decomposed, 32, &status);
  if (length <= 0 || U_FAILURE(status)) return AppendUtf8(c, out);
  std::string base;
  int kept = 0;
  for (std::int32_t i = 0; i < length;) {
    UChar32 part;
    U16_NEXT(decomposed, i, length, part);
    if (!IsDiacritic(part)) {
      AppendUtf8(part, &base);
      ++kept;
    }
  }
  // Only a letter that is one base letter plus marks loses them (é → e).
  if (kept == 1) {
    out->append(base);
  } else {
    AppendUtf8(c, out);
  }
}

// Calls `on_code_point` with each code point of `raw`, -1 for an invalid byte.
template <typename OnCodePoint>
void ForEachCodePoint(std::string_view raw, OnCodePoint on_code_point) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(raw.data());
  const auto length = static_cast<std::int32_t>(raw.size());
  for (std::int32_t i = 0; i < length;) {
    const std::int32_t start = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    on_code_point(c,
                  raw.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
  }
}

struct StemmerDeleter {
  void operator()(sb_stemmer* stemmer) const { sb_stemmer_delete(stemmer); }
};

// One Snowball stemmer per language and thread: a stemmer keeps state between calls.
sb_stemmer* StemmerFor(const Language& language) {
  thread_local std::map<std::string_view, std::unique_ptr<sb_stemmer, StemmerDeleter>> stemmers;
  auto& stemmer = stemmers[language.snowball];
  if (stemmer == nullptr) {
    stemmer.reset(sb_stemmer_new(std::string(language.snowball).c_str(), "UTF_8"));
  }
  return stemmer.get();
}

}  // namespace

void ForEachToken(
    std::string_view raw, const Language& language,
    const std::function<void(std::string_view lowered, std::string_view written)>& on_token) {
  std::string lowered;
  std::size_t start = 0;
  std::size_t offset = 0;
  ForEachCodePoint(raw, [&](UChar32 c, std::string_view bytes) {
    if (c < 0 || IsDelimiter(c, language)) {
      if (!lowered.empty()) on_token(lowered, raw.substr(start, offset - start));
      lowered.clear();
      offset += bytes.size();
      start = offset;
      return;
    }
    AppendUtf8(Lower(c, language), &lowered);
    offset += bytes.size();
  });
  if (!lowered.empty()) on_token(lowered, raw.substr(start, offset - start));
}

std::string StripDiacritics(std::string_view word) {
  std::string out;
  out.reserve(word.size());
  ForEachCodePoint(word, [&](UChar32 c, std::string_view bytes) {
    if (c < 0) {
      out.append(bytes);
    } else {
      AppendStripped(c, &out);
    }
  });
  return out;
}

std::string Normalize(std::string_view raw, Sensitivity sensitivity) {
  std::string out;
  out.reserve(raw.size());
  ForEachCodePoint(raw, [&](UChar32 c, std::string_view bytes) {
    if (c < 0) {
      out.append(bytes);
      return;
    }
    if (!sensitivity.case_sensitive) c = Lower(c);
    if (sensitivity.diacritic_sensitive) {
      AppendUtf8(c, &out);
    } else {
      AppendStripped(c, &out);
    }
  });
  return out;
}

std::string Stem(const Language& language, std::string_view word) {
  if (language.snowball.empty()) return std::string(word);
  sb_stemmer* stemmer = StemmerFor(language);
  if (stemmer == nullptr) return std::string(word);
  const sb_symbol* stem = sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(word.data()),
                                          static_cast<int>(word.size()));
  if (stem == nullptr) return std::string(word);  // out of memory: the word unstemmed
  return std::string(reinterpret_cast<const char*>(stem),
                     static_cast<std::size_t>(sb_stemmer_length(stemmer)));
}

void ForEachTerm(std::string_view raw, const Language& language, Sensitivity sensitivity,
                 bool drop_stop_words,
                 const std::function<void(const std::string& term)>& on_term) {
  ForEachToken(raw, language, [&](std::string_view lowered, std::string_view written) {
    if (drop_stop_words && language.is_stop_word != nullptr && language.is_stop_word(lowered)) {
      return;
    }
    std::string term = Stem(language, sensitivity.case_sensitive ? written : lowered);
    on_term(sensitivity.diacritic_sensitive ? term : StripDiacritics(term));
  });
}

}  // namespace quarry::text
