#include "text/search_analyzer.h"

#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "text/analyzer.h"
#include "text/custom_analyzer.h"
#include "text/icu_handles.h"

namespace quarry::text {
namespace {

// Lucene's English stop set, which lucene.english drops (lucene.standard drops none).
bool IsLuceneEnglishStopWord(std::string_view word) {
  static constexpr std::array<std::string_view, 33> kWords = {
      "a",   "an",    "and",  "are",   "as",    "at",   "be",   "but", "by",  "for",  "if",
      "in",  "into",  "is",   "it",    "no",    "not",  "of",   "on",  "or",  "such", "that",
      "the", "their", "then", "there", "these", "they", "this", "to",  "was", "will", "with"};
  return std::binary_search(kWords.begin(), kWords.end(), word);
}

// Lucene's English analyzer stems with Porter's original algorithm, not Snowball's English.
constexpr Language kLuceneEnglish{.name = "english",
                                  .snowball = "porter",
                                  .is_stop_word = IsLuceneEnglishStopWord,
                                  .apostrophe_in_words = true,
                                  .turkish_case = false};

using Tokenizer = SearchAnalyzer::Tokenizer;

// Lucene's tokenizers' maxTokenLength.
constexpr std::size_t kMaxTokenLength = 255;

const Language* LanguageNamed(std::string_view name) { return FindLanguage(name); }

// Lucene's StandardTokenizer makes each Han ideograph and each Hiragana character a token of
// its own, where ICU's dictionary finds words; other characters of such a word (Katakana, for
// one) stay together in runs.
template <typename OnWord>
void SplitIdeographs(std::string_view word, OnWord on_word) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto length = static_cast<std::int32_t>(word.size());
  std::int32_t run_start = -1;
  for (std::int32_t i = 0; i < length;) {
    const std::int32_t at = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    UErrorCode status = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(c, &status);
    const bool single = script == USCRIPT_HAN || script == USCRIPT_HIRAGANA;
    if (single || run_start < 0) {
      if (run_start >= 0) {
        on_word(word.substr(static_cast<std::size_t>(run_start),
                            static_cast<std::size_t>(at - run_start)));
        run_start = -1;
      }
      if (single) {
        on_word(word.substr(static_cast<std::size_t>(at), static_cast<std::size_t>(i - at)));
      } else {
        run_start = at;
      }
    }
  }
  if (run_start >= 0) on_word(word.substr(static_cast<std::size_t>(run_start)));
}

// Calls `on_word` with each word of `value` by Unicode's word boundaries: the segments that
// hold letters, digits, kana or ideographs (rule status at least UBRK_WORD_NONE_LIMIT).
template <typename OnWord>
void ForEachUnicodeWord(std::string_view value, OnWord on_word) {
  UErrorCode status = U_ZERO_ERROR;
  UTextPtr text(
      utext_openUTF8(nullptr, value.data(), static_cast<std::int64_t>(value.size()), &status));
  // One iterator per thread: opening one loads the rules.
  thread_local BreakIteratorPtr words(ubrk_open(UBRK_WORD, "", nullptr, 0, &status));
  if (U_FAILURE(status) || words == nullptr) return;
  ubrk_setUText(words.get(), text.get(), &status);
  if (U_FAILURE(status)) return;
  std::int32_t start = ubrk_first(words.get());
  for (std::int32_t end = ubrk_next(words.get()); end != UBRK_DONE;
       start = end, end = ubrk_next(words.get())) {
    const std::int32_t rule = ubrk_getRuleStatus(words.get());
    if (rule < UBRK_WORD_NONE_LIMIT) continue;
    const std::string_view word =
        value.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start));
    if (rule >= UBRK_WORD_KANA && rule < UBRK_WORD_IDEO_LIMIT) {
      SplitIdeographs(word, on_word);
    } else {
      on_word(word);
    }
  }
}

// Calls `on_word` with each run of code points that `in_word` admits.
template <typename InWord, typename OnWord>
void ForEachRun(std::string_view value, InWord in_word, OnWord on_word) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(value.data());
  const auto length = static_cast<std::int32_t>(value.size());
  std::int32_t run_start = -1;
  for (std::int32_t i = 0; i < length;) {
    const std::int32_t at = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    const bool inside = c >= 0 && in_word(c);
    if (inside && run_start < 0) run_start = at;
    if (!inside && run_start >= 0) {
      on_word(value.substr(static_cast<std::size_t>(run_start),
                           static_cast<std::size_t>(at - run_start)));
      run_start = -1;
    }
  }
  if (run_start >= 0) on_word(value.substr(static_cast<std::size_t>(run_start)));
}

// Calls `on_token` with `word`, or as Lucene's tokenizers do with a word longer than
// `max_length` characters, with its pieces of that length (the last shorter).
void SplitLongToken(std::string_view word, std::size_t max_length,
                    const std::function<void(std::string_view)>& on_token) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto length = static_cast<std::int32_t>(word.size());
  std::int32_t piece_start = 0, i = 0;
  std::size_t characters = 0;
  while (i < length) {
    U8_FWD_1(bytes, i, length);
    if (++characters == max_length && i < length) {
      on_token(word.substr(static_cast<std::size_t>(piece_start),
                           static_cast<std::size_t>(i - piece_start)));
      piece_start = i;
      characters = 0;
    }
  }
  on_token(word.substr(static_cast<std::size_t>(piece_start)));
}

}  // namespace

// "dog's" -> "dog", with any of the apostrophes Lucene's possessive filter knows.
std::string_view WithoutPossessive(std::string_view word) {
  for (std::string_view apostrophe : {"'", "\u2019", "\uFF07"}) {
    for (std::string_view s : {"s", "S"}) {
      const std::size_t suffix = apostrophe.size() + s.size();
      if (word.size() > suffix &&
          word.substr(word.size() - suffix, apostrophe.size()) == apostrophe &&
          word.substr(word.size() - s.size()) == s) {
        return word.substr(0, word.size() - suffix);
      }
    }
  }
  return word;
}

void ForEachStandardToken(std::string_view value, std::size_t max_token_length,
                          const std::function<void(std::string_view)>& on_token) {
  ForEachUnicodeWord(
      value, [&](std::string_view word) { SplitLongToken(word, max_token_length, on_token); });
}

void ForEachWhitespaceToken(std::string_view value, std::size_t max_token_length,
                            const std::function<void(std::string_view)>& on_token) {
  ForEachRun(
      value, [](UChar32 c) { return u_isWhitespace(c) == 0; },
      [&](std::string_view word) { SplitLongToken(word, max_token_length, on_token); });
}

std::string SearchAnalyzer::Normalize(std::string_view text) const {
  if (custom_ != nullptr) return NormalizeCustom(*custom_, text);
  return lowercase_ ? LowercaseCodePoints(text) : std::string(text);
}

const SearchAnalyzer& SearchAnalyzer::Standard() {
  static constexpr SearchAnalyzer kStandard("lucene.standard", Tokenizer::kStandard, true, nullptr,
                                            false);
  return kStandard;
}

const SearchAnalyzer* SearchAnalyzer::Find(std::string_view name) {
  static constexpr SearchAnalyzer kSimple("lucene.simple", Tokenizer::kLetters, true, nullptr,
                                          false);
  static constexpr SearchAnalyzer kWhitespace("lucene.whitespace", Tokenizer::kWhitespace, false,
                                              nullptr, false);
  static constexpr SearchAnalyzer kKeyword("lucene.keyword", Tokenizer::kKeyword, false, nullptr,
                                           false);
  static constexpr SearchAnalyzer kEnglish("lucene.english", Tokenizer::kStandard, true,
                                           &kLuceneEnglish, true);
  if (name == "lucene.standard") return &Standard();
  if (name == "lucene.simple") return &kSimple;
  if (name == "lucene.whitespace") return &kWhitespace;
  if (name == "lucene.keyword") return &kKeyword;
  if (name == "lucene.english") return &kEnglish;
  // The other languages text search stems: their stop words and Snowball stemmers.
  static const auto* const kLanguages = [] {
    auto* analyzers = new std::vector<std::pair<std::string, SearchAnalyzer>>();
    for (std::string_view language :
         {"danish", "dutch", "finnish", "french", "german", "hungarian", "italian", "norwegian",
          "portuguese", "romanian", "russian", "spanish", "swedish", "turkish"}) {
      const Language* found = LanguageNamed(language);
      if (found == nullptr) continue;
      std::string analyzer_name = "lucene." + std::string(language);
      analyzers->emplace_back(analyzer_name,
                              SearchAnalyzer("", Tokenizer::kStandard, true, found, false));
    }
    for (auto& [analyzer_name, analyzer] : *analyzers) analyzer.name_ = analyzer_name;
    return analyzers;
  }();
  for (const auto& [analyzer_name, analyzer] : *kLanguages) {
    if (analyzer_name == name) return &analyzer;
  }
  return nullptr;
}

void SearchAnalyzer::Analyze(
    std::string_view value,
    const std::function<void(std::string_view term, std::uint32_t position)>& on_term) const {
  AnalyzeWithOffsets(value, [&](std::string_view term, std::uint32_t position, std::size_t,
                                std::size_t) { on_term(term, position); });
}

std::vector<QueryToken> SearchAnalyzer::QueryTokens(std::string_view text) const {
  if (custom_ != nullptr) return CustomQueryTokens(*custom_, text);
  std::vector<QueryToken> tokens;
  Analyze(text, [&](std::string_view term, std::uint32_t position) {
    tokens.push_back({std::string(term), position, 1});
  });
  return tokens;
}

void SearchAnalyzer::AnalyzeWithOffsets(
    std::string_view value,
    const std::function<void(std::string_view term, std::uint32_t position, std::size_t start,
                             std::size_t end)>& on_term) const {
  if (custom_ != nullptr) {
    RunCustomAnalysis(*custom_, value, on_term);
    return;
  }
  std::uint32_t position = 0;
  // Every word is a view into `value`, so its offsets are where it lies.
  auto on_word = [&](std::string_view word) {
    const std::uint32_t at = position++;
    const std::size_t start = static_cast<std::size_t>(word.data() - value.data());
    const std::size_t end = start + word.size();
    if (drop_possessives_) word = WithoutPossessive(word);
    std::string term = lowercase_ ? LowercaseCodePoints(word) : std::string(word);
    if (language_ != nullptr) {
      if (language_->is_stop_word != nullptr && language_->is_stop_word(term)) return;
      term = Stem(*language_, term);
    }
    if (!term.empty()) on_term(term, at, start, end);
  };
  // As Lucene's tokenizers do, a word longer than 255 characters is split into pieces.
  auto on_piece = [&](std::string_view word) { SplitLongToken(word, kMaxTokenLength, on_word); };
  switch (tokenizer_) {
    case Tokenizer::kStandard:
      ForEachUnicodeWord(value, on_piece);
      break;
    case Tokenizer::kLetters:
      ForEachRun(
          value, [](UChar32 c) { return u_isalpha(c) != 0; }, on_piece);
      break;
    case Tokenizer::kWhitespace:
      ForEachRun(
          value, [](UChar32 c) { return u_isWhitespace(c) == 0; }, on_piece);
      break;
    case Tokenizer::kKeyword:
      on_word(value);
      break;
  }
}

std::vector<std::string_view> CharactersOf(std::string_view s) {
  std::vector<std::string_view> out;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto length = static_cast<std::int32_t>(s.size());
  for (std::int32_t i = 0; i < length;) {
    const std::int32_t start = i;
    U8_FWD_1(bytes, i, length);
    out.push_back(s.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
  }
  return out;
}

std::string LowercaseCodePoints(std::string_view word) {
  std::string out;
  out.reserve(word.size());
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto length = static_cast<std::int32_t>(word.size());
  for (std::int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) c = 0xFFFD;
    char encoded[U8_MAX_LENGTH];
    std::int32_t n = 0;
    U8_APPEND_UNSAFE(encoded, n, u_tolower(c));
    out.append(encoded, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace quarry::text
