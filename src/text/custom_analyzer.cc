#include "text/custom_analyzer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <libstemmer.h>
#include <pcre2.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "text/analyzer.h"
#include "text/language.h"
#include "text/plural_stemmers.h"
#include "text/token_stream_filters.h"
#include "text/utf16.h"
#include "text/word_delimiter.h"

namespace quarry::text {

// The match limits of one search, per thread: a pattern that backtracks without end stops, as
// if nothing more matched.
static pcre2_match_context* BoundedContext() {
  struct Context {
    pcre2_match_context* context = pcre2_match_context_create(nullptr);
    Context() {
      if (context != nullptr) pcre2_set_match_limit(context, 1'000'000);
    }
    ~Context() { pcre2_match_context_free(context); }
  };
  thread_local Context bounded;
  return bounded.context;
}

// A PCRE2 pattern (Java's regular expressions read the same for what analyzers use), found
// anywhere in a text.
class FindPattern {
 public:
  static StatusWith<std::shared_ptr<const FindPattern>> Compile(std::string_view pattern,
                                                                const std::string& at) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_UTF, &error, &offset, nullptr);
    if (code == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error, message, sizeof(message));
      return Status(ErrorCode::kBadValue, "\"" + at + "\" is not a valid regular expression: " +
                                              reinterpret_cast<const char*>(message));
    }
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    return std::shared_ptr<const FindPattern>(new FindPattern(code));
  }
  ~FindPattern() { pcre2_code_free(code_); }
  FindPattern(const FindPattern&) = delete;
  FindPattern& operator=(const FindPattern&) = delete;

  std::uint32_t groups() const {
    std::uint32_t n = 0;
    pcre2_pattern_info(code_, PCRE2_INFO_CAPTURECOUNT, &n);
    return n;
  }

  // Calls `on_match` with [start, end) of group `group` (0: the whole match) of each match.
  void ForEachMatch(std::string_view text, int group,
                    const std::function<void(std::size_t, std::size_t)>& on_match) const {
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_, nullptr);
    if (data == nullptr) return;
    PCRE2_SIZE from = 0;
    while (from <= text.size()) {
      const int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                                 from, 0, data, BoundedContext());
      if (rc < 0) break;
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
      const auto g = static_cast<std::size_t>(group);
      if (ovector[2 * g] != PCRE2_UNSET) on_match(ovector[2 * g], ovector[2 * g + 1]);
      // An empty match moves on by one character.
      from = ovector[1] > ovector[0] ? ovector[1] : NextCharacter(text, ovector[1]);
    }
    pcre2_match_data_free(data);
  }

  // `text` with the first or every match replaced by `replacement` ($1 names a group).
  std::string Replace(std::string_view text, const std::string& replacement, bool all) const {
    std::string out(text.size() * 2 + 64, '\0');
    for (int attempt = 0; attempt < 2; ++attempt) {
      PCRE2_SIZE length = out.size();
      const int rc = pcre2_substitute(
          code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
          (all ? PCRE2_SUBSTITUTE_GLOBAL : 0) | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, nullptr,
          BoundedContext(), reinterpret_cast<PCRE2_SPTR>(replacement.data()), replacement.size(),
          reinterpret_cast<PCRE2_UCHAR*>(out.data()), &length);
      if (rc >= 0) {
        out.resize(length);
        return out;
      }
      if (rc != PCRE2_ERROR_NOMEMORY) return std::string(text);
      out.resize(length);
    }
    return std::string(text);
  }

 private:
  explicit FindPattern(pcre2_code* code) : code_(code) {}
  static PCRE2_SIZE NextCharacter(std::string_view text, PCRE2_SIZE at) {
    if (at >= text.size()) return text.size() + 1;
    auto i = static_cast<std::int32_t>(at);
    U8_FWD_1(reinterpret_cast<const std::uint8_t*>(text.data()), i,
             static_cast<std::int32_t>(text.size()));
    return static_cast<PCRE2_SIZE>(i);
  }

  pcre2_code* code_;
};

namespace {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Status NotYet(std::string what) {
  return Status(ErrorCode::kNotImplemented, std::move(what) + " is not supported by Quarry yet");
}

// ---- parsing ----

StatusWith<std::string_view> TypeOf(bson::ValueView spec, const std::string& at) {
  if (spec.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  bson::ValueView type = spec.Document().Get("type");
  if (type.type() != bson::Type::kString) return Bad("\"" + at + ".type\" is required");
  return type.String();
}

// Checks that `spec` has no options but `allowed` (and type).
Status OnlyOptions(bson::ValueView spec, const std::string& at,
                   std::initializer_list<std::string_view> allowed) {
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "type") continue;
    if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
      return Bad("\"" + at + "." + std::string(e.key) + "\" is not an option of this type");
    }
  }
  return Status::OK();
}

StatusWith<std::size_t> Count(bson::ValueView spec, std::string_view name, std::size_t fallback,
                              std::size_t low, std::size_t high, const std::string& at) {
  bson::ValueView value = spec.Document().Get(name);
  if (!value.exists()) return fallback;
  if (!value.IsIntegral() || value.AsInt64() < static_cast<std::int64_t>(low) ||
      value.AsInt64() > static_cast<std::int64_t>(high)) {
    return Bad("\"" + at + "." + std::string(name) + "\" must be a whole number from " +
               std::to_string(low) + " to " + std::to_string(high));
  }
  return static_cast<std::size_t>(value.AsInt64());
}

StatusWith<std::string> StringOption(bson::ValueView spec, std::string_view name,
                                     const std::string& at, bool required) {
  bson::ValueView value = spec.Document().Get(name);
  if (!value.exists() && !required) return std::string();
  if (value.type() != bson::Type::kString) {
    return Bad("\"" + at + "." + std::string(name) + "\" must be a string");
  }
  return std::string(value.String());
}

StatusWith<bool> Choice(bson::ValueView spec, std::string_view name, std::string_view yes,
                        std::string_view no, bool fallback, const std::string& at) {
  bson::ValueView value = spec.Document().Get(name);
  if (!value.exists()) return fallback;
  if (value.type() == bson::Type::kString && value.String() == yes) return true;
  if (value.type() == bson::Type::kString && value.String() == no) return false;
  return Bad("\"" + at + "." + std::string(name) + "\" must be \"" + std::string(yes) + "\" or \"" +
             std::string(no) + "\"");
}

Status GramBounds(bson::ValueView spec, const std::string& at, std::size_t* min, std::size_t* max) {
  if (!spec.Document().Get("minGram").exists() || !spec.Document().Get("maxGram").exists()) {
    return Bad("\"" + at + "\" needs minGram and maxGram");
  }
  QUARRY_ASSIGN_OR_RETURN(*min, Count(spec, "minGram", 1, 1, 255, at));
  QUARRY_ASSIGN_OR_RETURN(*max, Count(spec, "maxGram", 2, 1, 255, at));
  if (*min > *max) return Bad("\"" + at + ".minGram\" must not exceed maxGram");
  return Status::OK();
}

StatusWith<CharFilter> ParseCharFilter(bson::ValueView spec, const std::string& at) {
  QUARRY_ASSIGN_OR_RETURN(std::string_view type, TypeOf(spec, at));
  CharFilter filter;
  if (type == "htmlStrip") {
    filter.kind = CharFilter::Kind::kHtmlStrip;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"ignoredTags"}));
    bson::ValueView tags = spec.Document().Get("ignoredTags");
    if (tags.exists()) {
      if (tags.type() != bson::Type::kArray)
        return Bad("\"" + at + ".ignoredTags\" must be an array");
      for (const bson::Element& tag : tags.Document()) {
        if (tag.value.type() != bson::Type::kString) {
          return Bad("\"" + at + ".ignoredTags\" must hold strings");
        }
        filter.ignored_tags.push_back(LowercaseCodePoints(tag.value.String()));
      }
    }
  } else if (type == "icuNormalize") {
    filter.kind = CharFilter::Kind::kIcuNormalize;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {}));
  } else if (type == "persian") {
    filter.kind = CharFilter::Kind::kPersian;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {}));
  } else if (type == "mapping") {
    filter.kind = CharFilter::Kind::kMapping;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"mappings"}));
    bson::ValueView mappings = spec.Document().Get("mappings");
    if (mappings.type() != bson::Type::kDocument || mappings.Document().empty()) {
      return Bad("\"" + at + ".mappings\" must be a non-empty document of strings");
    }
    for (const bson::Element& m : mappings.Document()) {
      if (m.key.empty() || m.value.type() != bson::Type::kString) {
        return Bad("\"" + at + ".mappings\" must map non-empty strings to strings");
      }
      filter.mappings.emplace_back(std::string(m.key), std::string(m.value.String()));
    }
    std::stable_sort(filter.mappings.begin(), filter.mappings.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  } else {
    return Bad("\"" + at + ".type\" must be htmlStrip, icuNormalize, mapping or persian");
  }
  return filter;
}

StatusWith<AnalysisTokenizer> ParseTokenizer(bson::ValueView spec, const std::string& at) {
  QUARRY_ASSIGN_OR_RETURN(std::string_view type, TypeOf(spec, at));
  AnalysisTokenizer tokenizer;
  if (type == "standard" || type == "whitespace") {
    tokenizer.kind = type == "standard" ? AnalysisTokenizer::Kind::kStandard
                                        : AnalysisTokenizer::Kind::kWhitespace;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"maxTokenLength"}));
    QUARRY_ASSIGN_OR_RETURN(tokenizer.max_token_length,
                            Count(spec, "maxTokenLength", 255, 1, 1 << 20, at));
  } else if (type == "keyword") {
    tokenizer.kind = AnalysisTokenizer::Kind::kKeyword;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {}));
  } else if (type == "edgeGram" || type == "nGram") {
    tokenizer.kind =
        type == "edgeGram" ? AnalysisTokenizer::Kind::kEdgeGram : AnalysisTokenizer::Kind::kNGram;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"minGram", "maxGram"}));
    QUARRY_RETURN_IF_ERROR(GramBounds(spec, at, &tokenizer.min_gram, &tokenizer.max_gram));
  } else if (type == "regexSplit" || type == "regexCaptureGroup") {
    const bool capture = type == "regexCaptureGroup";
    tokenizer.kind = capture ? AnalysisTokenizer::Kind::kRegexCaptureGroup
                             : AnalysisTokenizer::Kind::kRegexSplit;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"pattern", "group"}));
    if (!capture && spec.Document().Get("group").exists()) {
      return Bad("\"" + at + ".group\" is an option of regexCaptureGroup");
    }
    QUARRY_ASSIGN_OR_RETURN(std::string pattern, StringOption(spec, "pattern", at, true));
    QUARRY_ASSIGN_OR_RETURN(tokenizer.pattern, FindPattern::Compile(pattern, at + ".pattern"));
    if (capture) {
      bson::ValueView group = spec.Document().Get("group");
      if (!group.IsIntegral() || group.AsInt64() < 0 ||
          group.AsInt64() > static_cast<std::int64_t>(tokenizer.pattern->groups())) {
        return Bad("\"" + at + ".group\" must name a group of the pattern (0: the whole match)");
      }
      tokenizer.group = static_cast<int>(group.AsInt64());
    }
  } else if (type == "uaxUrlEmail") {
    return NotYet("the tokenizer \"uaxUrlEmail\"");
  } else {
    return Bad("\"" + at + ".type\" \"" + std::string(type) + "\" is not a tokenizer");
  }
  return tokenizer;
}

// The libstemmer algorithm `name` names (its own static string), or null.
const char* StemmerNamed(std::string_view name) {
  for (const char** algorithm = sb_stemmer_list(); *algorithm != nullptr; ++algorithm) {
    if (name == *algorithm) return *algorithm;
  }
  return nullptr;
}

std::string Trimmed(std::string_view term);  // without white space at either end (below)

// Each position gives a shingle of every size up to the largest, each holding its words: the
// sizes are bounded so that one long value cannot take memory without end.
constexpr std::size_t kMaxShingleSize = 32;

StatusWith<bool> Flag(bson::ValueView value, const std::string& at) {
  if (value.type() != bson::Type::kBool) return Bad("\"" + at + "\" must be a boolean");
  return value.Bool();
}

StatusWith<std::shared_ptr<const WordDelimiterOptions>> ParseWordDelimiter(bson::ValueView spec,
                                                                           const std::string& at) {
  QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"delimiterOptions", "protectedWords"}));
  auto options = std::make_shared<WordDelimiterOptions>();
  if (bson::ValueView delimiters = spec.Document().Get("delimiterOptions"); delimiters.exists()) {
    const std::string inner = at + ".delimiterOptions";
    if (delimiters.type() != bson::Type::kDocument) {
      return Bad("\"" + inner + "\" must be a document");
    }
    const std::pair<std::string_view, bool*> flags[] = {
        {"generateWordParts", &options->generate_word_parts},
        {"generateNumberParts", &options->generate_number_parts},
        {"concatenateWords", &options->concatenate_words},
        {"concatenateNumbers", &options->concatenate_numbers},
        {"concatenateAll", &options->concatenate_all},
        {"preserveOriginal", &options->preserve_original},
        {"splitOnCaseChange", &options->split_on_case_change},
        {"splitOnNumerics", &options->split_on_numerics},
        {"stemEnglishPossessive", &options->stem_english_possessive},
        {"ignoreKeywords", &options->ignore_keywords}};
    for (const bson::Element& e : delimiters.Document()) {
      const auto* flag = std::find_if(std::begin(flags), std::end(flags),
                                      [&](const auto& f) { return f.first == e.key; });
      const std::string option = inner + "." + std::string(e.key);
      if (flag == std::end(flags)) return Bad("\"" + option + "\" is not an option of this type");
      QUARRY_ASSIGN_OR_RETURN(*flag->second, Flag(e.value, option));
    }
  }
  if (bson::ValueView words = spec.Document().Get("protectedWords"); words.exists()) {
    const std::string inner = at + ".protectedWords";
    if (words.type() != bson::Type::kDocument) return Bad("\"" + inner + "\" must be a document");
    bool has_words = false;
    for (const bson::Element& e : words.Document()) {
      const std::string option = inner + "." + std::string(e.key);
      if (e.key == "ignoreCase") {
        QUARRY_ASSIGN_OR_RETURN(options->protected_ignore_case, Flag(e.value, option));
      } else if (e.key == "words") {
        if (e.value.type() != bson::Type::kArray) {
          return Bad("\"" + option + "\" must be an array of strings");
        }
        for (const bson::Element& word : e.value.Document()) {
          if (word.value.type() != bson::Type::kString || Trimmed(word.value.String()).empty()) {
            return Bad("\"" + option + "\" must hold strings that are not blank");
          }
          options->protected_words.push_back(ToUtf16(word.value.String()));
        }
        has_words = true;
      } else {
        return Bad("\"" + option + "\" is not an option of this type");
      }
    }
    if (!has_words) return Bad("\"" + inner + ".words\" is required");
    if (options->protected_ignore_case) {
      for (std::u16string& word : options->protected_words) {
        for (char16_t& c : word) c = static_cast<char16_t>(u_tolower(c));
      }
    }
  }
  return std::shared_ptr<const WordDelimiterOptions>(std::move(options));
}

StatusWith<TokenFilter> ParseTokenFilter(bson::ValueView spec, const std::string& at) {
  QUARRY_ASSIGN_OR_RETURN(std::string_view type, TypeOf(spec, at));
  TokenFilter filter;
  using Kind = TokenFilter::Kind;
  if (type == "lowercase" || type == "englishPossessive" || type == "trim" || type == "reverse" ||
      type == "icuFolding" || type == "flattenGraph" || type == "porterStemming") {
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {}));
    filter.kind = type == "lowercase"           ? Kind::kLowercase
                  : type == "englishPossessive" ? Kind::kEnglishPossessive
                  : type == "trim"              ? Kind::kTrim
                  : type == "reverse"           ? Kind::kReverse
                  : type == "icuFolding"        ? Kind::kIcuFolding
                  : type == "flattenGraph"      ? Kind::kFlattenGraph
                                                : Kind::kSnowballStemming;
    if (type == "porterStemming") filter.stemmer = StemmerNamed("porter");
  } else if (type == "asciiFolding") {
    filter.kind = Kind::kAsciiFolding;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"originalTokens"}));
    QUARRY_ASSIGN_OR_RETURN(filter.keep_original,
                            Choice(spec, "originalTokens", "include", "omit", false, at));
  } else if (type == "stopword") {
    filter.kind = Kind::kStopword;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"tokens", "ignoreCase"}));
    bson::ValueView ignore = spec.Document().Get("ignoreCase");
    if (ignore.exists()) {
      if (ignore.type() != bson::Type::kBool)
        return Bad("\"" + at + ".ignoreCase\" must be a boolean");
      filter.ignore_case = ignore.Bool();
    }
    bson::ValueView tokens = spec.Document().Get("tokens");
    if (tokens.type() != bson::Type::kArray || tokens.Document().empty()) {
      return Bad("\"" + at + ".tokens\" must be a non-empty array of strings");
    }
    for (const bson::Element& t : tokens.Document()) {
      if (t.value.type() != bson::Type::kString)
        return Bad("\"" + at + ".tokens\" must hold strings");
      filter.stop_words.push_back(filter.ignore_case ? LowercaseCodePoints(t.value.String())
                                                     : std::string(t.value.String()));
    }
    std::sort(filter.stop_words.begin(), filter.stop_words.end());
  } else if (type == "snowballStemming") {
    filter.kind = Kind::kSnowballStemming;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"stemmerName"}));
    QUARRY_ASSIGN_OR_RETURN(std::string name, StringOption(spec, "stemmerName", at, true));
    filter.stemmer = StemmerNamed(name);
    if (filter.stemmer == nullptr) {
      return NotYet("the Snowball stemmer \"" + name + "\" (\"" + at + ".stemmerName\")");
    }
  } else if (type == "length") {
    filter.kind = Kind::kLength;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"min", "max"}));
    QUARRY_ASSIGN_OR_RETURN(filter.min, Count(spec, "min", 0, 0, 1 << 20, at));
    QUARRY_ASSIGN_OR_RETURN(filter.max, Count(spec, "max", 255, 0, 1 << 20, at));
    if (filter.min > filter.max) return Bad("\"" + at + ".min\" must not exceed max");
  } else if (type == "edgeGram" || type == "nGram") {
    filter.kind = type == "edgeGram" ? Kind::kEdgeGram : Kind::kNGram;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"minGram", "maxGram", "termNotInBounds"}));
    QUARRY_RETURN_IF_ERROR(GramBounds(spec, at, &filter.min, &filter.max));
    QUARRY_ASSIGN_OR_RETURN(filter.keep_original,
                            Choice(spec, "termNotInBounds", "include", "omit", false, at));
  } else if (type == "regex") {
    filter.kind = Kind::kRegex;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"pattern", "replacement", "matches"}));
    QUARRY_ASSIGN_OR_RETURN(std::string pattern, StringOption(spec, "pattern", at, true));
    QUARRY_ASSIGN_OR_RETURN(filter.pattern, FindPattern::Compile(pattern, at + ".pattern"));
    QUARRY_ASSIGN_OR_RETURN(filter.replacement, StringOption(spec, "replacement", at, true));
    if (!spec.Document().Get("matches").exists()) return Bad("\"" + at + ".matches\" is required");
    QUARRY_ASSIGN_OR_RETURN(filter.replace_all, Choice(spec, "matches", "all", "first", true, at));
  } else if (type == "icuNormalizer") {
    filter.kind = Kind::kIcuNormalizer;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"normalizationForm"}));
    QUARRY_ASSIGN_OR_RETURN(std::string form, StringOption(spec, "normalizationForm", at, false));
    static constexpr std::array<std::string_view, 4> kForms = {"nfc", "nfd", "nfkc", "nfkd"};
    auto found = std::find(kForms.begin(), kForms.end(), form.empty() ? "nfc" : form);
    if (found == kForms.end()) {
      return Bad("\"" + at + ".normalizationForm\" must be nfc, nfd, nfkc or nfkd");
    }
    filter.normalization_form = static_cast<int>(found - kForms.begin());
  } else if (type == "keywordRepeat" || type == "removeDuplicates" ||
             type == "englishMinimalStemming" || type == "spanishPluralStemming") {
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {}));
    filter.kind = type == "keywordRepeat"            ? Kind::kKeywordRepeat
                  : type == "removeDuplicates"       ? Kind::kRemoveDuplicates
                  : type == "englishMinimalStemming" ? Kind::kEnglishMinimalStemming
                                                     : Kind::kSpanishPluralStemming;
  } else if (type == "limitTokenCount") {
    filter.kind = Kind::kLimitTokenCount;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"maxTokenCount"}));
    if (!spec.Document().Get("maxTokenCount").exists()) {
      return Bad("\"" + at + ".maxTokenCount\" is required");
    }
    QUARRY_ASSIGN_OR_RETURN(filter.max_token_count,
                            Count(spec, "maxTokenCount", 1, 1, 0x7fffffff, at));
  } else if (type == "shingle") {
    filter.kind = Kind::kShingle;
    QUARRY_RETURN_IF_ERROR(OnlyOptions(spec, at, {"minShingleSize", "maxShingleSize"}));
    for (std::string_view option : {"minShingleSize", "maxShingleSize"}) {
      if (!spec.Document().Get(option).exists()) {
        return Bad("\"" + at + "." + std::string(option) + "\" is required");
      }
    }
    QUARRY_ASSIGN_OR_RETURN(filter.min, Count(spec, "minShingleSize", 2, 2, kMaxShingleSize, at));
    QUARRY_ASSIGN_OR_RETURN(filter.max, Count(spec, "maxShingleSize", 2, 2, kMaxShingleSize, at));
    if (filter.min > filter.max) {
      return Bad("\"" + at + ".minShingleSize\" must not be greater than maxShingleSize");
    }
  } else if (type == "wordDelimiterGraph") {
    filter.kind = Kind::kWordDelimiterGraph;
    QUARRY_ASSIGN_OR_RETURN(filter.word_delimiter, ParseWordDelimiter(spec, at));
  } else if (type == "daitchMokotoffSoundex" || type == "kStemming" || type == "stempel") {
    return NotYet("the token filter \"" + std::string(type) + "\"");
  } else {
    return Bad("\"" + at + ".type\" \"" + std::string(type) + "\" is not a token filter");
  }
  return filter;
}

// ---- running ----

// A text and, for each of its bytes and its end, where that byte came from in the original value.
struct Mapped {
  std::string text;
  std::vector<std::size_t> origin;

  void Copy(const Mapped& from, std::size_t at, std::size_t n) {
    text.append(from.text, at, n);
    origin.insert(origin.end(), from.origin.begin() + static_cast<std::ptrdiff_t>(at),
                  from.origin.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
  // `replacement` for from's bytes [at, at + n): every byte of it comes from `at`.
  void Replace(const Mapped& from, std::size_t at, std::string_view replacement) {
    text.append(replacement);
    origin.insert(origin.end(), replacement.size(), from.origin[at]);
  }
  void End(const Mapped& from) { origin.push_back(from.origin.back()); }
};

std::string Utf8(UChar32 c) {
  char bytes[U8_MAX_LENGTH];
  std::int32_t n = 0;
  U8_APPEND_UNSAFE(bytes, n, c);
  return std::string(bytes, static_cast<std::size_t>(n));
}

Mapped ApplyMapping(const CharFilter& filter, const Mapped& in) {
  Mapped out;
  for (std::size_t i = 0; i < in.text.size();) {
    bool replaced = false;
    for (const auto& [from, to] : filter.mappings) {
      if (in.text.compare(i, from.size(), from) == 0) {
        out.Replace(in, i, to);
        i += from.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out.Copy(in, i++, 1);
  }
  out.End(in);
  return out;
}

Mapped ApplyPersian(const Mapped& in) {
  CharFilter zwnj;
  zwnj.mappings = {{"\u200C", " "}};
  return ApplyMapping(zwnj, in);
}

// The HTML 4 entities text most often holds; others stay as written.
std::optional<std::string> DecodeEntity(std::string_view name) {
  static const std::map<std::string_view, std::string_view> kNamed = {
      {"amp", "&"},         {"lt", "<"},          {"gt", ">"},          {"quot", "\""},
      {"apos", "'"},        {"nbsp", "\u00A0"},   {"copy", "\u00A9"},   {"reg", "\u00AE"},
      {"trade", "\u2122"},  {"hellip", "\u2026"}, {"mdash", "\u2014"},  {"ndash", "\u2013"},
      {"lsquo", "\u2018"},  {"rsquo", "\u2019"},  {"ldquo", "\u201C"},  {"rdquo", "\u201D"},
      {"euro", "\u20AC"},   {"eacute", "\u00E9"}, {"egrave", "\u00E8"}, {"agrave", "\u00E0"},
      {"ccedil", "\u00E7"}, {"uuml", "\u00FC"},   {"ouml", "\u00F6"},   {"auml", "\u00E4"},
      {"szlig", "\u00DF"},  {"deg", "\u00B0"},    {"middot", "\u00B7"}, {"laquo", "\u00AB"},
      {"raquo", "\u00BB"}};
  if (name.size() > 1 && name[0] == '#') {
    const bool hex = name[1] == 'x' || name[1] == 'X';
    const std::string digits(name.substr(hex ? 2 : 1));
    if (digits.empty() || digits.size() > 7) return std::nullopt;
    char* end = nullptr;
    const long code = std::strtol(digits.c_str(), &end, hex ? 16 : 10);
    if (*end != '\0' || code <= 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return std::nullopt;
    }
    return Utf8(static_cast<UChar32>(code));
  }
  auto found = kNamed.find(name);
  if (found == kNamed.end()) return std::nullopt;
  return std::string(found->second);
}

// Lucene's HTML stripping: a block-level element becomes a line break, so words on either side
// stay apart; inline tags vanish, so "<b>bo</b>ld" is one word.
bool IsBlockTag(std::string_view tag) {
  static constexpr std::array<std::string_view, 40> kBlocks = {
      "address", "article", "aside",    "blockquote", "br",     "caption", "dd",     "div",
      "dl",      "dt",      "fieldset", "figcaption", "figure", "footer",  "form",   "h1",
      "h2",      "h3",      "h4",       "h5",         "h6",     "header",  "hgroup", "hr",
      "li",      "main",    "nav",      "noscript",   "ol",     "output",  "p",      "pre",
      "section", "table",   "tbody",    "td",         "tfoot",  "th",      "thead",  "tr"};
  return std::find(kBlocks.begin(), kBlocks.end(), tag) != kBlocks.end() || tag == "ul";
}

Mapped ApplyHtmlStrip(const CharFilter& filter, const Mapped& in) {
  Mapped out;
  const std::string& s = in.text;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '&') {
      const std::size_t semicolon = s.find(';', i);
      if (semicolon != std::string::npos && semicolon - i <= 10) {
        if (std::optional<std::string> decoded =
                DecodeEntity(std::string_view(s).substr(i + 1, semicolon - i - 1))) {
          out.Replace(in, i, *decoded);
          i = semicolon + 1;
          continue;
        }
      }
      out.Copy(in, i++, 1);
      continue;
    }
    if (s[i] != '<') {
      out.Copy(in, i++, 1);
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const std::size_t close = s.find("-->", i + 4);
      const std::size_t end = close == std::string::npos ? s.size() : close + 3;
      out.Replace(in, i, "");
      i = end;
      continue;
    }
    const std::size_t close = s.find('>', i);
    std::size_t name_start = i + 1;
    const bool closing = name_start < s.size() && s[name_start] == '/';
    if (closing) ++name_start;
    std::size_t name_end = name_start;
    while (name_end < s.size() && std::isalnum(static_cast<unsigned char>(s[name_end])) != 0) {
      ++name_end;
    }
    if (close == std::string::npos || (name_end == name_start && s[name_start] != '!')) {
      out.Copy(in, i++, 1);  // not a tag: a lone '<'
      continue;
    }
    const std::string tag =
        LowercaseCodePoints(std::string_view(s).substr(name_start, name_end - name_start));
    if (std::find(filter.ignored_tags.begin(), filter.ignored_tags.end(), tag) !=
        filter.ignored_tags.end()) {
      out.Copy(in, i, close + 1 - i);
      i = close + 1;
      continue;
    }
    std::size_t end = close + 1;
    if (!closing && (tag == "script" || tag == "style")) {
      // Their contents are code, not text.
      const std::size_t end_tag = s.find("</" + tag, end);
      const std::size_t end_close =
          end_tag == std::string::npos ? std::string::npos : s.find('>', end_tag);
      end = end_close == std::string::npos ? s.size() : end_close + 1;
    }
    out.Replace(in, i, IsBlockTag(tag) ? "\n" : "");
    i = end;
  }
  out.End(in);
  return out;
}

// `text` in normalization form `normalizer`, piece by piece between the form's boundaries so
// that each piece's output maps back to where it came from.
Mapped ApplyNormalizer(const UNormalizer2* normalizer, const Mapped& in) {
  Mapped out;
  const std::string& s = in.text;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
  const auto length = static_cast<std::int32_t>(s.size());
  std::int32_t piece = 0;
  auto flush = [&](std::int32_t end) {
    if (end <= piece) return;
    const std::string_view source(s.data() + piece, static_cast<std::size_t>(end - piece));
    UErrorCode status = U_ZERO_ERROR;
    std::int32_t units = 0;
    u_strFromUTF8(nullptr, 0, &units, source.data(), static_cast<std::int32_t>(source.size()),
                  &status);
    std::u16string wide(static_cast<std::size_t>(std::max(units, 0)), u'\0');
    status = U_ZERO_ERROR;
    u_strFromUTF8(wide.data(), units, nullptr, source.data(),
                  static_cast<std::int32_t>(source.size()), &status);
    if (U_FAILURE(status)) {  // not UTF-8: left as it is
      out.Copy(in, static_cast<std::size_t>(piece), source.size());
      piece = end;
      return;
    }
    std::u16string normal(static_cast<std::size_t>(units) * 4 + 8, u'\0');
    status = U_ZERO_ERROR;
    const std::int32_t n = unorm2_normalize(normalizer, wide.data(), units, normal.data(),
                                            static_cast<std::int32_t>(normal.size()), &status);
    std::string utf8;
    if (U_SUCCESS(status)) {
      std::int32_t bytes_needed = 0;
      UErrorCode to_status = U_ZERO_ERROR;
      u_strToUTF8(nullptr, 0, &bytes_needed, normal.data(), n, &to_status);
      utf8.resize(static_cast<std::size_t>(bytes_needed));
      to_status = U_ZERO_ERROR;
      u_strToUTF8(utf8.data(), bytes_needed, nullptr, normal.data(), n, &to_status);
    } else {
      utf8 = std::string(source);
    }
    if (utf8 == source) {
      out.Copy(in, static_cast<std::size_t>(piece), source.size());
    } else {
      out.Replace(in, static_cast<std::size_t>(piece), utf8);
    }
    piece = end;
  };
  for (std::int32_t i = 0; i < length;) {
    const std::int32_t at = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (at > piece && c >= 0 && unorm2_hasBoundaryBefore(normalizer, c)) flush(at);
  }
  flush(length);
  out.End(in);
  return out;
}

const UNormalizer2* NormalizerOf(int form) {
  UErrorCode status = U_ZERO_ERROR;
  switch (form) {
    case 1:
      return unorm2_getNFDInstance(&status);
    case 2:
      return unorm2_getNFKCInstance(&status);
    case 3:
      return unorm2_getNFKDInstance(&status);
    case 4:
      return unorm2_getNFKCCasefoldInstance(&status);
    default:
      return unorm2_getNFCInstance(&status);
  }
}

std::string Normalized(std::string_view term, int form) {
  Mapped in;
  in.text = std::string(term);
  in.origin.assign(term.size() + 1, 0);
  return ApplyNormalizer(NormalizerOf(form), in).text;
}

using Token = AnalysisToken;

// Calls `on_gram` with each gram of `text` from min to max characters: from its start only
// (edge) or from every character, as [start byte, end byte).
void ForEachGram(std::string_view text, std::size_t min, std::size_t max, bool edge,
                 const std::function<void(std::size_t, std::size_t)>& on_gram) {
  const std::vector<std::string_view> chars = CharactersOf(text);
  const std::size_t starts = edge ? std::min<std::size_t>(1, chars.size()) : chars.size();
  for (std::size_t from = 0; from < starts; ++from) {
    for (std::size_t n = min; n <= max && from + n <= chars.size(); ++n) {
      const std::size_t begin = static_cast<std::size_t>(chars[from].data() - text.data());
      const std::string_view last = chars[from + n - 1];
      on_gram(begin, static_cast<std::size_t>(last.data() + last.size() - text.data()));
    }
  }
}

std::vector<Token> Tokenize(const AnalysisTokenizer& tokenizer, std::string_view text) {
  std::vector<Token> tokens;
  std::uint32_t position = 0;
  auto add = [&](std::size_t start, std::size_t end) {
    if (end > start) {
      tokens.push_back({std::string(text.substr(start, end - start)), position++, start, end});
    }
  };
  auto add_view = [&](std::string_view token) {
    const auto start = static_cast<std::size_t>(token.data() - text.data());
    add(start, start + token.size());
  };
  switch (tokenizer.kind) {
    case AnalysisTokenizer::Kind::kStandard:
      ForEachStandardToken(text, tokenizer.max_token_length, add_view);
      break;
    case AnalysisTokenizer::Kind::kWhitespace:
      ForEachWhitespaceToken(text, tokenizer.max_token_length, add_view);
      break;
    case AnalysisTokenizer::Kind::kKeyword:
      add(0, text.size());
      break;
    case AnalysisTokenizer::Kind::kEdgeGram:
    case AnalysisTokenizer::Kind::kNGram:
      ForEachGram(text, tokenizer.min_gram, tokenizer.max_gram,
                  tokenizer.kind == AnalysisTokenizer::Kind::kEdgeGram, add);
      break;
    case AnalysisTokenizer::Kind::kRegexSplit: {
      std::size_t piece = 0;
      tokenizer.pattern->ForEachMatch(text, 0, [&](std::size_t start, std::size_t end) {
        add(piece, start);
        piece = end;
      });
      add(piece, text.size());
      break;
    }
    case AnalysisTokenizer::Kind::kRegexCaptureGroup:
      tokenizer.pattern->ForEachMatch(text, tokenizer.group, add);
      break;
  }
  return tokens;
}

// Latin letters without a decomposition that Lucene's ASCII folding still maps.
std::string AsciiFolded(std::string_view term) {
  static const std::map<std::string_view, std::string_view> kLetters = {
      {"ß", "ss"}, {"æ", "ae"}, {"Æ", "AE"}, {"œ", "oe"}, {"Œ", "OE"},  {"ø", "o"},
      {"Ø", "O"},  {"đ", "d"},  {"Đ", "D"},  {"ł", "l"},  {"Ł", "L"},   {"þ", "th"},
      {"Þ", "TH"}, {"ð", "d"},  {"Ð", "D"},  {"ı", "i"},  {"ĸ", "q"},   {"ŉ", "'n"},
      {"ſ", "s"},  {"ﬀ", "ff"}, {"ﬁ", "fi"}, {"ﬂ", "fl"}, {"ﬃ", "ffi"}, {"ﬄ", "ffl"}};
  std::string out;
  const std::string stripped = StripDiacritics(term);  // the views below point into it
  for (std::string_view c : CharactersOf(stripped)) {
    auto found = kLetters.find(c);
    out.append(found != kLetters.end() ? found->second : c);
  }
  return out;
}

std::size_t Utf16Length(std::string_view term) {
  std::size_t n = 0;
  for (std::string_view c : CharactersOf(term)) n += c.size() == 4 ? 2 : 1;
  return n;
}

std::string Trimmed(std::string_view term) {
  const std::vector<std::string_view> chars = CharactersOf(term);
  auto blank = [](std::string_view c) {
    UChar32 cp;
    std::int32_t i = 0;
    U8_NEXT(reinterpret_cast<const std::uint8_t*>(c.data()), i, static_cast<std::int32_t>(c.size()),
            cp);
    return u_isWhitespace(cp) != 0;
  };
  std::size_t first = 0, last = chars.size();
  while (first < last && blank(chars[first])) ++first;
  while (last > first && blank(chars[last - 1])) --last;
  std::string out;
  for (std::size_t k = first; k < last; ++k) out.append(chars[k]);
  return out;
}

std::vector<Token> Filter(const TokenFilter& filter, std::vector<Token> tokens,
                          std::uint32_t end_position) {
  using Kind = TokenFilter::Kind;
  switch (filter.kind) {
    case Kind::kKeywordRepeat:
      return RepeatAsKeywords(std::move(tokens));
    case Kind::kRemoveDuplicates:
      return WithoutDuplicates(std::move(tokens));
    case Kind::kLimitTokenCount:
      return FirstTokens(std::move(tokens), filter.max_token_count);
    case Kind::kShingle:
      return Shingles(tokens, filter.min, filter.max, end_position);
    case Kind::kWordDelimiterGraph:
      return DelimitWords(tokens, *filter.word_delimiter);
    default:
      break;
  }
  std::vector<Token> out;
  out.reserve(tokens.size());
  for (Token& token : tokens) {
    switch (filter.kind) {
      case Kind::kLowercase:
        token.term = LowercaseCodePoints(token.term);
        break;
      case Kind::kAsciiFolding: {
        std::string folded = AsciiFolded(token.term);
        if (filter.keep_original && folded != token.term) out.push_back(token);
        token.term = std::move(folded);
        break;
      }
      case Kind::kStopword: {
        const std::string key = filter.ignore_case ? LowercaseCodePoints(token.term) : token.term;
        if (std::binary_search(filter.stop_words.begin(), filter.stop_words.end(), key)) continue;
        break;
      }
      case Kind::kSnowballStemming: {
        if (token.keyword) break;
        const Language language{.name = filter.stemmer, .snowball = filter.stemmer};
        token.term = Stem(language, token.term);
        break;
      }
      case Kind::kEnglishMinimalStemming:
        if (!token.keyword) token.term = EnglishMinimalStem(token.term);
        break;
      case Kind::kSpanishPluralStemming:
        if (!token.keyword) token.term = SpanishPluralStem(token.term);
        break;
      case Kind::kEnglishPossessive:
        token.term = std::string(WithoutPossessive(token.term));
        break;
      case Kind::kLength: {
        const std::size_t n = Utf16Length(token.term);
        if (n < filter.min || n > filter.max) continue;
        break;
      }
      case Kind::kTrim:
        token.term = Trimmed(token.term);
        break;
      case Kind::kReverse: {
        std::vector<std::string_view> chars = CharactersOf(token.term);
        std::string reversed;
        for (auto it = chars.rbegin(); it != chars.rend(); ++it) reversed.append(*it);
        token.term = std::move(reversed);
        break;
      }
      case Kind::kEdgeGram:
      case Kind::kNGram: {
        const std::size_t n = CharactersOf(token.term).size();
        if (filter.keep_original && (n < filter.min || n > filter.max)) out.push_back(token);
        ForEachGram(token.term, filter.min, filter.max, filter.kind == Kind::kEdgeGram,
                    [&](std::size_t start, std::size_t end) {
                      out.push_back({token.term.substr(start, end - start), token.position,
                                     token.start, token.end});
                    });
        continue;
      }
      case Kind::kRegex:
        token.term = filter.pattern->Replace(token.term, filter.replacement, filter.replace_all);
        break;
      case Kind::kIcuFolding:
        token.term = StripDiacritics(Normalized(token.term, 4));
        break;
      case Kind::kIcuNormalizer:
        token.term = Normalized(token.term, filter.normalization_form);
        break;
      case Kind::kFlattenGraph:
      case Kind::kKeywordRepeat:
      case Kind::kRemoveDuplicates:
      case Kind::kLimitTokenCount:
      case Kind::kShingle:
      case Kind::kWordDelimiterGraph:
        break;
    }
    if (!token.term.empty()) out.push_back(std::move(token));
  }
  return out;
}

}  // namespace

StatusWith<std::shared_ptr<const CustomAnalyzer>> ParseCustomAnalyzer(bson::ValueView spec,
                                                                      const std::string& at) {
  if (spec.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  std::string name;
  CustomAnalysis analysis;
  bool has_tokenizer = false;
  for (const bson::Element& e : spec.Document()) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "name") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Bad("\"" + inner + "\" must be a non-empty string");
      }
      name = std::string(e.value.String());
    } else if (e.key == "tokenizer") {
      QUARRY_ASSIGN_OR_RETURN(analysis.tokenizer, ParseTokenizer(e.value, inner));
      has_tokenizer = true;
    } else if (e.key == "charFilters" || e.key == "tokenFilters") {
      if (e.value.type() != bson::Type::kArray) return Bad("\"" + inner + "\" must be an array");
      std::size_t i = 0;
      for (const bson::Element& f : e.value.Document()) {
        const std::string item = inner + "[" + std::to_string(i++) + "]";
        if (e.key == "charFilters") {
          QUARRY_ASSIGN_OR_RETURN(CharFilter filter, ParseCharFilter(f.value, item));
          analysis.char_filters.push_back(std::move(filter));
        } else {
          QUARRY_ASSIGN_OR_RETURN(TokenFilter filter, ParseTokenFilter(f.value, item));
          analysis.token_filters.push_back(std::move(filter));
        }
      }
    } else {
      return Bad("\"" + inner + "\" is not an option of a custom analyzer");
    }
  }
  if (name.empty()) return Bad("\"" + at + ".name\" is required");
  if (name.starts_with("lucene.") || name.starts_with("builtin.")) {
    return Bad("\"" + at + ".name\" cannot start with \"lucene.\" or \"builtin.\"");
  }
  if (!has_tokenizer) return Bad("\"" + at + ".tokenizer\" is required");
  return std::shared_ptr<const CustomAnalyzer>(
      std::make_shared<CustomAnalyzer>(std::move(name), std::move(analysis)));
}

namespace {

Mapped CharFiltered(const CustomAnalysis& analysis, std::string_view value) {
  Mapped text;
  text.text = std::string(value);
  text.origin.resize(value.size() + 1);
  for (std::size_t i = 0; i <= value.size(); ++i) text.origin[i] = i;
  for (const CharFilter& filter : analysis.char_filters) {
    switch (filter.kind) {
      case CharFilter::Kind::kHtmlStrip:
        text = ApplyHtmlStrip(filter, text);
        break;
      case CharFilter::Kind::kIcuNormalize:
        text = ApplyNormalizer(NormalizerOf(4), text);
        break;
      case CharFilter::Kind::kMapping:
        text = ApplyMapping(filter, text);
        break;
      case CharFilter::Kind::kPersian:
        text = ApplyPersian(text);
        break;
    }
  }
  return text;
}

}  // namespace

std::string NormalizeCustom(const CustomAnalysis& analysis, std::string_view text) {
  std::vector<Token> term = {{CharFiltered(analysis, text).text, 0, 0, 0}};
  for (const TokenFilter& filter : analysis.token_filters) {
    using Kind = TokenFilter::Kind;
    if (filter.kind != Kind::kLowercase && filter.kind != Kind::kAsciiFolding &&
        filter.kind != Kind::kIcuFolding && filter.kind != Kind::kIcuNormalizer) {
      continue;
    }
    TokenFilter normalizing = filter;
    normalizing.keep_original = false;
    term = Filter(normalizing, std::move(term), 1);
    if (term.empty()) return std::string();
  }
  return term.front().term;
}

namespace {

// The tokens of `text` (already through the character filters) after the token filters.
std::vector<Token> Analysis(const CustomAnalysis& analysis, std::string_view text) {
  std::vector<Token> tokens = Tokenize(analysis.tokenizer, text);
  // The position after the tokenizer's last: what dropped tokens at the end leave empty.
  auto end_position = static_cast<std::uint32_t>(tokens.size());
  for (const TokenFilter& filter : analysis.token_filters) {
    tokens = Filter(filter, std::move(tokens), end_position);
    if (filter.kind == TokenFilter::Kind::kShingle) {
      end_position = tokens.empty() ? 0 : tokens.back().position + 1;
    }
  }
  return tokens;
}

}  // namespace

void RunCustomAnalysis(const CustomAnalysis& analysis, std::string_view value,
                       const std::function<void(std::string_view term, std::uint32_t position,
                                                std::size_t start, std::size_t end)>& on_term) {
  const Mapped text = CharFiltered(analysis, value);
  for (const Token& token : Analysis(analysis, text.text)) {
    on_term(token.term, token.position, text.origin[token.start], text.origin[token.end]);
  }
}

std::vector<QueryToken> CustomQueryTokens(const CustomAnalysis& analysis, std::string_view text) {
  std::vector<QueryToken> out;
  for (Token& token : Analysis(analysis, CharFiltered(analysis, text).text)) {
    out.push_back({std::move(token.term), token.position, token.length});
  }
  return out;
}

}  // namespace quarry::text
