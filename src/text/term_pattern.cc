#include "text/term_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

#include "text/search_analyzer.h"

namespace quarry::text {
namespace {

// Backtracking steps one term may take: a term is at most a few hundred characters, so only a
// pattern such as (a+)+b comes near it, and then it fails to match instead of running on.
constexpr std::uint32_t kMatchLimit = 1'000'000;

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

// `c` as a PCRE pattern matching it literally (inside a class too).
void AppendLiteral(std::string_view c, std::string* pcre) {
  if (c.size() != 1 || (c[0] & 0x80) != 0) {
    pcre->append(c);  // beyond ASCII nothing is special
  } else if (std::isalnum(static_cast<unsigned char>(c[0])) != 0) {
    pcre->push_back(c[0]);
  } else {
    char escaped[8];
    std::snprintf(escaped, sizeof(escaped), "\\x{%02x}", static_cast<unsigned char>(c[0]));
    pcre->append(escaped);
  }
}

// Lucene's shorthand classes.
const char* ShorthandClass(char c) {
  switch (c) {
    case 'd':
      return "[0-9]";
    case 'D':
      return "[^0-9]";
    case 'w':
      return "[a-zA-Z0-9_]";
    case 'W':
      return "[^a-zA-Z0-9_]";
    case 's':
      return "[ \\t\\n\\r\\f\\v]";
    case 'S':
      return "[^ \\t\\n\\r\\f\\v]";
    default:
      return nullptr;
  }
}

// Translates Lucene's regular expression syntax to PCRE's, collecting the literal characters
// every match starts with.
class RegexTranslator {
 public:
  explicit RegexTranslator(std::string_view pattern) : chars_(CharactersOf(pattern)) {}

  Status Translate() {
    bool alternation = false;
    while (i_ < chars_.size()) {
      const std::string_view c = chars_[i_++];
      const char ascii = c.size() == 1 ? c[0] : '\0';
      switch (ascii) {
        case '\\': {
          if (i_ == chars_.size()) return Bad("a regex cannot end with \\");
          const std::string_view next = chars_[i_++];
          if (const char* shorthand = next.size() == 1 ? ShorthandClass(next[0]) : nullptr) {
            Special(shorthand);
          } else {
            Literal(next);
          }
          break;
        }
        case '"': {
          // One atom: a quantifier after it repeats the whole string.
          pcre_ += "(?:";
          bool closed = false;
          std::size_t in_prefix = 0;
          while (i_ < chars_.size()) {
            const std::string_view quoted = chars_[i_++];
            if (quoted == "\"") {
              closed = true;
              break;
            }
            AppendLiteral(quoted, &pcre_);
            if (in_prefix_) {
              prefix_.push_back(quoted);
              ++in_prefix;
            }
          }
          if (!closed) return Bad("a regex's quoted string has no closing \"");
          pcre_ += ")";
          last_atom_ = in_prefix;
          break;
        }
        case '[':
          QUARRY_RETURN_IF_ERROR(Class());
          break;
        case '{':
          QUARRY_RETURN_IF_ERROR(Repeat());
          break;
        case '.':
          Special(".");
          break;
        case '?':
        case '*':
          Quantifier(c);
          break;
        case '+':
        case '(':
        case ')':
          Special(c);
          break;
        case '|':
          alternation = true;
          Special(c);
          break;
        case '@':
          Special(".*");
          break;
        case '#':
          Special("(?!)");
          break;
        case '&':
        case '~':
        case '<':
          return Status(ErrorCode::kNotImplemented,
                        std::string("the regex operator's \"") + ascii +
                            "\" (Lucene's intersection, complement and numeric interval) is not "
                            "supported by Quarry yet");
        default:
          Literal(c);
          break;
      }
    }
    if (alternation) prefix_.clear();
    return Status::OK();
  }

  const std::string& pcre() const { return pcre_; }
  std::string prefix() const {
    std::string out;
    for (std::string_view c : prefix_) out.append(c);
    return out;
  }

 private:
  void Literal(std::string_view c) {
    AppendLiteral(c, &pcre_);
    last_atom_ = in_prefix_ ? 1 : 0;
    if (in_prefix_) prefix_.push_back(c);
  }
  void Special(std::string_view s) {
    pcre_.append(s);
    in_prefix_ = false;
    last_atom_ = 0;
  }
  // A quantifier that allows none of what it follows takes that atom out of the prefix.
  void Quantifier(std::string_view s) {
    if (in_prefix_) prefix_.resize(prefix_.size() - std::min(last_atom_, prefix_.size()));
    Special(s);
  }

  Status Class() {
    std::string out = "[";
    if (i_ < chars_.size() && chars_[i_] == "^") {
      out += '^';
      ++i_;
    }
    bool empty = true;
    while (i_ < chars_.size()) {
      const std::string_view c = chars_[i_++];
      if (c == "]") {
        if (empty) return Bad("a regex's character class cannot be empty");
        out += ']';
        Special(out);
        return Status::OK();
      }
      empty = false;
      if (c == "\\") {
        if (i_ == chars_.size()) break;
        const std::string_view next = chars_[i_++];
        const char* shorthand = next.size() == 1 ? ShorthandClass(next[0]) : nullptr;
        if (shorthand != nullptr) {
          // [\d] is [0-9]: the class's body without its brackets.
          std::string_view body(shorthand);
          if (body[1] == '^')
            return Status(ErrorCode::kNotImplemented,
                          "a negated shorthand inside a regex class is not "
                          "supported by Quarry yet");
          out.append(body.substr(1, body.size() - 2));
        } else {
          AppendLiteral(next, &out);
        }
      } else if (c == "-" && !empty && i_ < chars_.size() && chars_[i_] != "]") {
        out += '-';
      } else {
        AppendLiteral(c, &out);
      }
    }
    return Bad("a regex's character class has no closing ]");
  }

  Status Repeat() {
    std::string body;
    while (i_ < chars_.size() && chars_[i_] != "}") body.append(chars_[i_++]);
    if (i_ == chars_.size()) return Bad("a regex's repetition has no closing }");
    ++i_;
    const std::size_t comma = body.find(',');
    const std::string_view low = std::string_view(body).substr(0, comma);
    const std::string_view high =
        comma == std::string::npos ? std::string_view() : std::string_view(body).substr(comma + 1);
    auto digits = [](std::string_view s) {
      return s.size() <= 4 && std::all_of(s.begin(), s.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) != 0;
             });
    };
    if (low.empty() || !digits(low) || !digits(high)) {
      return Bad("a regex's repetition must be {n}, {n,} or {n,m}");
    }
    if (std::stoi(std::string(low)) == 0) Quantifier("");
    Special("{" + body + "}");
    return Status::OK();
  }

  std::vector<std::string_view> chars_;
  std::size_t i_ = 0;
  std::string pcre_;
  std::vector<std::string_view> prefix_;
  bool in_prefix_ = true;
  std::size_t last_atom_ = 0;  // the prefix's characters the last atom gave
};

}  // namespace

struct TermPattern::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() {
    if (code != nullptr) pcre2_code_free(code);
  }
};

StatusWith<TermPattern> TermPattern::Wildcard(std::string_view pattern) {
  const std::vector<std::string_view> chars = CharactersOf(pattern);
  std::string pcre, prefix;
  bool in_prefix = true;
  for (std::size_t i = 0; i < chars.size(); ++i) {
    std::string_view c = chars[i];
    if (c == "*" || c == "?") {
      pcre += c == "*" ? ".*" : ".";
      in_prefix = false;
      continue;
    }
    if (c == "\\" && i + 1 < chars.size()) c = chars[++i];
    AppendLiteral(c, &pcre);
    if (in_prefix) prefix.append(c);
  }
  return Compile(pcre, std::move(prefix), pattern);
}

StatusWith<TermPattern> TermPattern::Regex(std::string_view pattern) {
  RegexTranslator translator(pattern);
  QUARRY_RETURN_IF_ERROR(translator.Translate());
  return Compile(translator.pcre(), translator.prefix(), pattern);
}

StatusWith<TermPattern> TermPattern::Compile(const std::string& pcre, std::string prefix,
                                             std::string_view original) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(
      reinterpret_cast<PCRE2_SPTR>(pcre.data()), pcre.size(),
      PCRE2_UTF | PCRE2_DOTALL | PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_NO_AUTO_CAPTURE,
      &error_code, &error_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    return Bad("\"" + std::string(original) +
               "\" is not a valid pattern: " + reinterpret_cast<const char*>(message));
  }
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // an optimisation only
  auto compiled = std::make_shared<Compiled>();
  compiled->code = code;
  TermPattern out;
  out.compiled_ = std::move(compiled);
  out.prefix_ = std::move(prefix);
  return out;
}

bool TermPattern::Matches(std::string_view term) const {
  struct MatchState {
    pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
    pcre2_match_context* context = pcre2_match_context_create(nullptr);
    MatchState() {
      if (context != nullptr) pcre2_set_match_limit(context, kMatchLimit);
    }
    ~MatchState() {
      pcre2_match_context_free(context);
      pcre2_match_data_free(data);
    }
  };
  thread_local MatchState state;
  if (state.data == nullptr || state.context == nullptr) return false;
  return pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(term.data()), term.size(), 0, 0,
                     state.data, state.context) >= 0;
}

}  // namespace quarry::text
