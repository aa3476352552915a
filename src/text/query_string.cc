// Lucene's classic query syntax, tokenized and then read by recursive descent, clause by clause
// as its QueryParser adds them.
#include "text/query_string.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "text/term_pattern.h"

namespace quarry::text {
namespace {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

struct Token {
  enum class Kind {
    kEnd,
    kAnd,
    kOr,
    kNot,
    kPlus,
    kMinus,
    kOpen,
    kClose,
    kColon,
    kBoost,   // ^N
    kTilde,   // ~ or ~N
    kWord,    // escapes kept: a wildcard pattern needs them
    kQuoted,  // "..." without its quotes, escapes removed
    kRegex,   // /.../ without its slashes
    kRange,   // [a TO b], {a TO b}
  };
  Kind kind = Kind::kEnd;
  std::size_t offset = 0;
  std::string text;   // word, quoted, regex; a range's lower bound ("" when open)
  std::string upper;  // a range's upper bound ("" when open)
  bool wildcard = false;
  bool lower_inclusive = false, upper_inclusive = false;
  std::optional<double> number;  // ^N, ~N
};

bool IsSpace(std::string_view s, std::size_t i, std::size_t* width) {
  const char c = s[i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
    *width = 1;
    return true;
  }
  if (s.substr(i, 3) == "\xE3\x80\x80") {  // U+3000, the ideographic space
    *width = 3;
    return true;
  }
  return false;
}

// Characters that end a word (Lucene's term characters are everything else, `-` and `+` after
// the first, and escaped characters).
bool EndsWord(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
    case '\f':
    case '!':
    case '(':
    case ')':
    case ':':
    case '^':
    case '[':
    case ']':
    case '"':
    case '{':
    case '}':
    case '~':
    case '/':
      return true;
    default:
      return false;
  }
}

std::string Unescaped(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out.push_back(text[i]);
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string_view query) : query_(query) {}

  StatusWith<std::vector<Token>> Tokens() {
    std::vector<Token> out;
    while (true) {
      SkipSpace();
      Token token;
      token.offset = at_;
      if (at_ == query_.size()) {
        out.push_back(std::move(token));
        return out;
      }
      if (out.size() == kMaxTokens) {
        return Bad("a queryString takes at most " + std::to_string(kMaxTokens) +
                   " words and operators");
      }
      QUARRY_RETURN_IF_ERROR(Next(&token));
      out.push_back(std::move(token));
    }
  }

 private:
  void SkipSpace() {
    std::size_t width = 0;
    while (at_ < query_.size() && IsSpace(query_, at_, &width)) at_ += width;
  }

  Status Error(std::string what) const {
    return Bad(std::move(what) + " at byte " + std::to_string(at_ + 1));
  }

  Status Next(Token* token) {
    const char c = query_[at_];
    auto single = [&](Token::Kind kind) {
      token->kind = kind;
      ++at_;
      return Status::OK();
    };
    switch (c) {
      case '+':
        return single(Token::Kind::kPlus);
      case '-':
        return single(Token::Kind::kMinus);
      case '!':
        return single(Token::Kind::kNot);
      case '(':
        return single(Token::Kind::kOpen);
      case ')':
        return single(Token::Kind::kClose);
      case ':':
        return single(Token::Kind::kColon);
      case '^':
        ++at_;
        token->kind = Token::Kind::kBoost;
        token->number = Number();
        if (!token->number.has_value()) return Error("^ must be followed by a number");
        return Status::OK();
      case '~':
        ++at_;
        token->kind = Token::Kind::kTilde;
        token->number = Number();
        return Status::OK();
      case '"':
        token->kind = Token::Kind::kQuoted;
        return Delimited('"', &token->text, true);
      case '/':
        token->kind = Token::Kind::kRegex;
        return Delimited('/', &token->text, false);
      case '[':
      case '{':
        return Range(token);
      case ']':
      case '}':
        return Error(std::string("unexpected '") + c + "'");
      default:
        return Word(token);
    }
  }

  // digits, optionally '.' and digits
  std::optional<double> Number() {
    const std::size_t start = at_;
    while (at_ < query_.size() && std::isdigit(static_cast<unsigned char>(query_[at_]))) ++at_;
    if (at_ == start) return std::nullopt;
    if (at_ + 1 < query_.size() && query_[at_] == '.' &&
        std::isdigit(static_cast<unsigned char>(query_[at_ + 1]))) {
      ++at_;
      while (at_ < query_.size() && std::isdigit(static_cast<unsigned char>(query_[at_]))) ++at_;
    }
    return std::stod(std::string(query_.substr(start, at_ - start)));
  }

  // From the opening `close` to the next unescaped one. A quoted phrase loses its escapes; a
  // regex keeps them for the pattern to read.
  Status Delimited(char close, std::string* out, bool unescape) {
    const std::size_t start = at_++;
    while (at_ < query_.size() && query_[at_] != close) {
      if (query_[at_] == '\\' && at_ + 1 < query_.size()) {
        if (!unescape) out->push_back('\\');
        ++at_;
      }
      out->push_back(query_[at_++]);
    }
    if (at_ == query_.size()) {
      at_ = start;
      return Error(std::string("unterminated ") + (close == '"' ? "quotation" : "regex"));
    }
    ++at_;
    return Status::OK();
  }

  Status Word(Token* token) {
    const std::size_t start = at_;
    while (at_ < query_.size()) {
      const char c = query_[at_];
      std::size_t width = 0;
      if (c == '\\') {
        if (at_ + 1 == query_.size()) return Error("a query cannot end with \\");
        at_ += 2;
        continue;
      }
      if (EndsWord(c) || IsSpace(query_, at_, &width)) break;
      if (c == '*' || c == '?') token->wildcard = true;
      ++at_;
    }
    const std::string_view word = query_.substr(start, at_ - start);
    token->kind = word == "AND" || word == "&&"  ? Token::Kind::kAnd
                  : word == "OR" || word == "||" ? Token::Kind::kOr
                  : word == "NOT"                ? Token::Kind::kNot
                                                 : Token::Kind::kWord;
    token->text = std::string(word);
    return Status::OK();
  }

  // [lower TO upper] (or `{`/`}` for an exclusive side); `*` leaves a side open.
  Status Range(Token* token) {
    const std::size_t start = at_;
    token->kind = Token::Kind::kRange;
    token->lower_inclusive = query_[at_++] == '[';
    auto bound = [&](std::string* out) -> Status {
      SkipSpace();
      if (at_ < query_.size() && query_[at_] == '"') {
        QUARRY_RETURN_IF_ERROR(Delimited('"', out, true));
        return Status::OK();
      }
      const std::size_t from = at_;
      std::size_t width = 0;
      while (at_ < query_.size() && query_[at_] != ']' && query_[at_] != '}' &&
             !IsSpace(query_, at_, &width)) {
        ++at_;
      }
      if (at_ == from) return Error("a range needs a bound");
      const std::string_view raw = query_.substr(from, at_ - from);
      *out = raw == "*" ? std::string() : Unescaped(raw);
      return Status::OK();
    };
    QUARRY_RETURN_IF_ERROR(bound(&token->text));
    SkipSpace();
    if (query_.substr(at_, 2) != "TO") return Error("a range needs TO between its bounds");
    at_ += 2;
    QUARRY_RETURN_IF_ERROR(bound(&token->upper));
    SkipSpace();
    if (at_ == query_.size() || (query_[at_] != ']' && query_[at_] != '}')) {
      at_ = start;
      return Error("unterminated range");
    }
    token->upper_inclusive = query_[at_++] == ']';
    return Status::OK();
  }

  // Enough for the most clauses a query may have (Parser::kMaxClauses), each with its field,
  // modifiers, parentheses and suffixes; a long query of operators alone stops here, before its
  // tokens take memory in proportion.
  static constexpr std::size_t kMaxTokens = 16 * 1024;

  std::string_view query_;
  std::size_t at_ = 0;
};

enum class Occur { kMust, kShould, kMustNot };

struct Clause {
  SearchOperator op;
  Occur occur;
};

// `op` scored `factor` times over (boosts nest by multiplying).
Status Boost(double factor, std::size_t offset, SearchOperator* op) {
  if (!(factor > 0) || !std::isfinite(factor)) {
    return Bad("a boost must be a positive number, at byte " + std::to_string(offset + 1));
  }
  if (op->score.kind == ScoreModifier::Kind::kBoost) {
    op->score.value *= factor;
  } else {
    op->score.kind = ScoreModifier::Kind::kBoost;
    op->score.value = factor;
  }
  return Status::OK();
}

// `~N` after a word as Lucene reads it: a whole N is edits, at most 2; an N below 1 is the
// older minimum similarity, (1 - N) of the word's characters.
StatusWith<int> FuzzyEdits(double n, std::string_view word, std::size_t offset) {
  if (n >= 1) {
    if (n != std::floor(n)) {
      return Bad("fractional edit distances are not allowed, at byte " +
                 std::to_string(offset + 1));
    }
    return static_cast<int>(std::min(n, 2.0));
  }
  if (n == 0) return 0;
  std::size_t characters = 0;
  for (const char c : word) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return static_cast<int>(std::min((1 - n) * static_cast<double>(characters), 2.0));
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string_view default_path)
      : tokens_(std::move(tokens)), default_path_(default_path) {}

  StatusWith<SearchOperator> Whole() {
    QUARRY_ASSIGN_OR_RETURN(SearchOperator op, Query(default_path_));
    if (Peek().kind == Token::Kind::kClose) return Unexpected(Describe(Token::Kind::kClose));
    return op;
  }

 private:
  const Token& Peek() const { return tokens_[next_]; }
  const Token& Take() { return tokens_[next_ == tokens_.size() - 1 ? next_ : next_++]; }

  static std::string_view Describe(Token::Kind kind) {
    switch (kind) {
      case Token::Kind::kEnd:
        return "end";
      case Token::Kind::kAnd:
        return "AND";
      case Token::Kind::kOr:
        return "OR";
      case Token::Kind::kNot:
        return "NOT";
      case Token::Kind::kPlus:
        return "'+'";
      case Token::Kind::kMinus:
        return "'-'";
      case Token::Kind::kOpen:
        return "'('";
      case Token::Kind::kClose:
        return "')'";
      case Token::Kind::kColon:
        return "':'";
      case Token::Kind::kBoost:
        return "'^'";
      case Token::Kind::kTilde:
        return "'~'";
      default:
        return "word";
    }
  }

  Status Unexpected(std::string_view what) const {
    return Bad("unexpected " + std::string(what) + " at byte " + std::to_string(Peek().offset + 1));
  }

  // Clauses up to a ')' or the end: Lucene's Query().
  StatusWith<SearchOperator> Query(const std::string& field) {
    std::vector<Clause> clauses;
    bool first_unmodified = false;
    while (true) {
      const Token::Kind at = Peek().kind;
      if (at == Token::Kind::kEnd || at == Token::Kind::kClose) {
        if (clauses.empty()) return Unexpected(Describe(at));
        break;
      }
      bool conj_and = false;
      if (at == Token::Kind::kAnd || at == Token::Kind::kOr) {
        if (clauses.empty()) return Unexpected(Describe(at));
        conj_and = at == Token::Kind::kAnd;
        Take();
      }
      bool required = false, prohibited = false;
      const Token::Kind modifier = Peek().kind;
      if (modifier == Token::Kind::kPlus) required = true;
      if (modifier == Token::Kind::kMinus || modifier == Token::Kind::kNot) prohibited = true;
      if (required || prohibited) Take();
      QUARRY_ASSIGN_OR_RETURN(SearchOperator op, OneClause(field));
      // An AND makes the clause before it required too, unless that one is prohibited.
      if (conj_and && !clauses.empty() && clauses.back().occur == Occur::kShould) {
        clauses.back().occur = Occur::kMust;
      }
      if (conj_and && !prohibited) required = true;
      if (clauses.empty()) first_unmodified = !required && !prohibited;
      clauses.push_back({std::move(op), prohibited ? Occur::kMustNot
                                        : required ? Occur::kMust
                                                   : Occur::kShould});
    }
    if (clauses.size() == 1 && first_unmodified) return std::move(clauses.front().op);
    SearchOperator compound;
    compound.kind = SearchOperator::Kind::kCompound;
    compound.absent_without_terms = true;
    for (Clause& clause : clauses) {
      auto& into = clause.occur == Occur::kMust     ? compound.must
                   : clause.occur == Occur::kShould ? compound.should
                                                    : compound.must_not;
      into.push_back(std::move(clause.op));
    }
    return compound;
  }

  // [field:] (group | word | phrase | regex | range), with its ~ and ^.
  StatusWith<SearchOperator> OneClause(const std::string& field) {
    std::string path = field;
    if (Peek().kind == Token::Kind::kWord && tokens_[next_ + 1].kind == Token::Kind::kColon) {
      const Token& name = Take();
      Take();
      path = Unescaped(name.text);
      if (name.wildcard) {
        // `*:*` is every document, as Lucene's parser reads it.
        if (path == "*" && Peek().kind == Token::Kind::kWord && Peek().text == "*") {
          Take();
          SearchOperator every;
          every.kind = SearchOperator::Kind::kAllDocuments;
          const Suffixes suffixes = ReadSuffixes();
          if (suffixes.boost.has_value()) {
            QUARRY_RETURN_IF_ERROR(Boost(*suffixes.boost, suffixes.boost_offset, &every));
          }
          return every;
        }
        if (path == "*")
          return Status(ErrorCode::kNotImplemented,
                        "searching every field (\"*:\") is not supported by "
                        "Quarry yet");
        return Bad("a field name cannot hold a wildcard, at byte " +
                   std::to_string(name.offset + 1));
      }
    }
    if (Peek().kind == Token::Kind::kOpen) {
      if (++depth_ > kMaxDepth) {
        return Bad("a queryString nests at most " + std::to_string(kMaxDepth) +
                   " parentheses deep");
      }
      Take();
      QUARRY_ASSIGN_OR_RETURN(SearchOperator op, Query(path));
      if (Peek().kind != Token::Kind::kClose) return Unexpected("end, expecting ')'");
      Take();
      --depth_;
      QUARRY_RETURN_IF_ERROR(TrailingBoost(&op));
      return op;
    }
    if (++clause_count_ > kMaxClauses) {
      return Bad("a queryString takes at most " + std::to_string(kMaxClauses) + " clauses");
    }
    const Token& token = Peek();
    switch (token.kind) {
      case Token::Kind::kWord:
        Take();
        return WordClause(token, path);
      case Token::Kind::kQuoted:
        Take();
        return PhraseClause(token, path);
      case Token::Kind::kRegex: {
        Take();
        SearchOperator op = Single(SearchOperator::Kind::kRegex, token.text, path);
        op.allow_analyzed_field = true;
        op.normalize_pattern = true;
        QUARRY_RETURN_IF_ERROR(Checked(TermPattern::Regex(token.text), token));
        QUARRY_RETURN_IF_ERROR(TrailingBoost(&op));
        return op;
      }
      case Token::Kind::kRange: {
        Take();
        SearchOperator op = Single(SearchOperator::Kind::kTermRange, "", path);
        op.queries.clear();
        bson::DocumentBuilder bounds;
        if (!token.text.empty())
          bounds.AppendString(token.lower_inclusive ? "gte" : "gt", token.text);
        if (!token.upper.empty())
          bounds.AppendString(token.upper_inclusive ? "lte" : "lt", token.upper);
        op.values = std::move(bounds).Finish();
        QUARRY_RETURN_IF_ERROR(TrailingBoost(&op));
        return op;
      }
      default:
        return Unexpected(Describe(token.kind));
    }
  }

  static SearchOperator Single(SearchOperator::Kind kind, std::string query,
                               const std::string& path) {
    SearchOperator op;
    op.kind = kind;
    op.queries = {std::move(query)};
    op.paths = {path};
    return op;
  }

  static Status Checked(const StatusWith<TermPattern>& pattern, const Token& token) {
    if (pattern.ok()) return Status::OK();
    return Status(pattern.status().code(), std::string(pattern.status().reason()) + ", at byte " +
                                               std::to_string(token.offset + 1));
  }

  Status TrailingBoost(SearchOperator* op) {
    if (Peek().kind != Token::Kind::kBoost) return Status::OK();
    const Token& boost = Take();
    return Boost(*boost.number, boost.offset, op);
  }

  // `~N` and `^N` in either order after a word or phrase.
  struct Suffixes {
    std::optional<std::optional<double>> tilde;
    std::optional<double> boost;
    std::size_t tilde_offset = 0, boost_offset = 0;
  };
  Suffixes ReadSuffixes() {
    Suffixes out;
    for (int round = 0; round < 2; ++round) {
      if (Peek().kind == Token::Kind::kTilde && !out.tilde.has_value()) {
        out.tilde_offset = Peek().offset;
        out.tilde = Take().number;
      } else if (Peek().kind == Token::Kind::kBoost && !out.boost.has_value()) {
        out.boost_offset = Peek().offset;
        out.boost = Take().number;
      }
    }
    return out;
  }

  StatusWith<SearchOperator> WordClause(const Token& word, const std::string& path) {
    const Suffixes suffixes = ReadSuffixes();
    SearchOperator op;
    if (word.wildcard) {
      if (word.text.front() == '*' || word.text.front() == '?') {
        return Bad(
            "'*' or '?' cannot start a word (leading wildcards are not allowed), at "
            "byte " +
            std::to_string(word.offset + 1));
      }
      if (suffixes.tilde.has_value()) {
        return Bad("a wildcard word cannot be fuzzy, at byte " +
                   std::to_string(suffixes.tilde_offset + 1));
      }
      op = Single(SearchOperator::Kind::kWildcard, word.text, path);
      op.allow_analyzed_field = true;
      QUARRY_RETURN_IF_ERROR(Checked(TermPattern::Wildcard(word.text), word));
    } else {
      op = Single(SearchOperator::Kind::kText, Unescaped(word.text), path);
      op.absent_without_terms = true;
      if (suffixes.tilde.has_value()) {
        QUARRY_ASSIGN_OR_RETURN(
            const int edits,
            FuzzyEdits(suffixes.tilde->value_or(2), op.queries.front(), suffixes.tilde_offset));
        if (edits > 0) op.fuzzy = FuzzyOptions{.max_edits = edits};
        // Lucene's parser normalizes a fuzzy word (lowercase, folding) without tokenizing or
        // stemming it.
        op.normalize_pattern = true;
      }
    }
    if (suffixes.boost.has_value()) {
      QUARRY_RETURN_IF_ERROR(Boost(*suffixes.boost, suffixes.boost_offset, &op));
    }
    return op;
  }

  StatusWith<SearchOperator> PhraseClause(const Token& quoted, const std::string& path) {
    const Suffixes suffixes = ReadSuffixes();
    SearchOperator op = Single(SearchOperator::Kind::kPhrase, quoted.text, path);
    op.absent_without_terms = true;
    if (suffixes.tilde.has_value()) {
      const double slop = suffixes.tilde->value_or(0);
      if (slop != std::floor(slop)) {
        return Bad("a phrase's slop must be a whole number, at byte " +
                   std::to_string(suffixes.tilde_offset + 1));
      }
      op.slop = static_cast<std::uint32_t>(std::min(slop, double{1 << 20}));
    }
    if (suffixes.boost.has_value()) {
      QUARRY_RETURN_IF_ERROR(Boost(*suffixes.boost, suffixes.boost_offset, &op));
    }
    return op;
  }

  // Bounds on what one query may make, against a request that would exhaust the stack or memory
  // (Lucene's own default allows 1,024 clauses).
  static constexpr std::size_t kMaxClauses = 1024;
  static constexpr std::size_t kMaxDepth = 64;

  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  std::size_t clause_count_ = 0;
  std::size_t depth_ = 0;
  std::string default_path_;
};

}  // namespace

StatusWith<SearchOperator> ParseQueryString(std::string_view query, std::string_view default_path) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer(query).Tokens());
  return Parser(std::move(tokens), default_path).Whole();
}

}  // namespace quarry::text
