#include "tools/client/shell_json.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace quarry::tools::client {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

// `raw` as a JSON string literal.
std::string JsonQuote(std::string_view raw) {
  std::string out = "\"";
  for (char c : raw) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

bool IsString(const std::string& value) { return !value.empty() && value.front() == '"'; }
bool IsNumber(const std::string& value) {
  return !value.empty() && (IsDigit(value.front()) || value.front() == '-');
}
// The text between a JSON string's quotes (still escaped).
std::string_view Content(const std::string& json_string) {
  return std::string_view(json_string).substr(1, json_string.size() - 2);
}

// mongosh reads a date, or a date-time without a zone, as UTC; Extended JSON wants both a time
// and a zone written.
std::string WithZone(std::string_view date) {
  const std::size_t time = date.find('T');
  if (time == std::string_view::npos) return std::string(date) + "T00:00:00Z";
  const std::string_view clock = date.substr(time);
  if (clock.find_first_of("Z+-") != std::string_view::npos) return std::string(date);
  return std::string(date) + "Z";
}

class Rewriter {
 public:
  explicit Rewriter(std::string_view text) : text_(text) {}

  StatusWith<std::string> Run() {
    std::string out;
    out.reserve(text_.size() + 16);
    QUARRY_RETURN_IF_ERROR(Value(&out));
    QUARRY_RETURN_IF_ERROR(SkipSpace());
    if (!AtEnd()) return Error("unexpected text after the value");
    return out;
  }

 private:
  Status Error(const std::string& what) const { return ErrorAt(pos_, what); }
  Status ErrorAt(std::size_t at, const std::string& what) const {
    int line = 1;
    int column = 1;
    for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Status(ErrorCode::kFailedToParse, "line " + std::to_string(line) + ", column " +
                                                 std::to_string(column) + ": " + what);
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  Status SkipSpace() {
    while (!AtEnd()) {
      const char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/') {
        while (!AtEnd() && Peek() != '\n') ++pos_;
      } else if (c == '/' && Peek(1) == '*') {
        const std::size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return Error("a comment that never ends");
        pos_ = end + 2;
      } else {
        break;
      }
    }
    return Status::OK();
  }

  // The rewriter recurses once per level of nesting: a hostile input cannot take the stack
  // deeper than this (BSON itself nests at most 200 levels in a message).
  static constexpr int kMaxDepth = 256;

  Status Value(std::string* out) {
    if (depth_ >= kMaxDepth)
      return Error("nested more than " + std::to_string(kMaxDepth) + " deep");
    ++depth_;
    Status value = UnnestedValue(out);
    --depth_;
    return value;
  }

  Status UnnestedValue(std::string* out) {
    QUARRY_RETURN_IF_ERROR(SkipSpace());
    if (AtEnd()) return Error("a value is missing");
    const char c = Peek();
    if (c == '{') return Members(out, '}');
    if (c == '[') return Members(out, ']');
    if (c == '"' || c == '\'') return String(out);
    if (c == '/') return Regex(out);
    if (c == '-' || c == '+' || c == '.' || IsDigit(c)) return Number(out);
    if (IsNameStart(c)) return Word(out);
    return Error(std::string("unexpected '") + c + "'");
  }

  // A document's fields or an array's elements, a trailing comma allowed.
  Status Members(std::string* out, char close) {
    out->push_back(text_[pos_++]);
    bool any = false;
    while (true) {
      QUARRY_RETURN_IF_ERROR(SkipSpace());
      if (Peek() == close) break;
      if (any) out->push_back(',');
      if (close == '}') {
        QUARRY_RETURN_IF_ERROR(Key(out));
        QUARRY_RETURN_IF_ERROR(SkipSpace());
        if (Peek() != ':') return Error("expected ':' after a field name");
        ++pos_;
        out->push_back(':');
      }
      QUARRY_RETURN_IF_ERROR(Value(out));
      any = true;
      QUARRY_RETURN_IF_ERROR(SkipSpace());
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == close) break;
      return Error(close == '}' ? "expected ',' or '}' in a document"
                                : "expected ',' or ']' in an array");
    }
    ++pos_;
    out->push_back(close);
    return Status::OK();
  }

  Status Key(std::string* out) {
    if (Peek() == '"' || Peek() == '\'') return String(out);
    const std::size_t start = pos_;
    while (!AtEnd() && IsNameChar(Peek())) ++pos_;
    if (pos_ == start) return Error("expected a field name");
    out->append(JsonQuote(text_.substr(start, pos_ - start)));
    return Status::OK();
  }

  // A double- or single-quoted string as a JSON string. JavaScript's escapes that JSON lacks
  // become their JSON equivalents.
  Status String(std::string* out) {
    const char quote = text_[pos_++];
    out->push_back('"');
    while (true) {
      if (AtEnd()) return Error("a string that never ends");
      const char c = text_[pos_++];
      if (c == quote) break;
      if (c == '"') {
        out->append("\\\"");
        continue;
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (AtEnd()) return Error("a string that never ends");
      const char escaped = text_[pos_++];
      switch (escaped) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
        case 'u':  // its four digits follow unchanged
          out->push_back('\\');
          out->push_back(escaped);
          break;
        case 'x':
          if (!IsHexDigit(Peek()) || !IsHexDigit(Peek(1))) return Error("a bad \\x escape");
          out->append("\\u00");
          out->append(text_.substr(pos_, 2));
          pos_ += 2;
          break;
        case 'v':
          out->append("\\u000b");
          break;
        case '0':
          out->append("\\u0000");
          break;
        case '\n':  // a line continuation
          break;
        default:  // '\'' and any other character stand for themselves
          out->push_back(escaped);
          break;
      }
    }
    out->push_back('"');
    return Status::OK();
  }

  Status Number(std::string* out) {
    if (Peek() == '+') ++pos_;
    bool negative = false;
    if (Peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (IsNameStart(Peek())) {
      const std::size_t start = pos_;
      while (!AtEnd() && IsNameChar(Peek())) ++pos_;
      if (text_.substr(start, pos_ - start) != "Infinity") return Error("a bad number");
      out->append(negative ? R"({"$numberDouble":"-Infinity"})"
                           : R"({"$numberDouble":"Infinity"})");
      return Status::OK();
    }
    if (negative) out->push_back('-');
    if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
      pos_ += 2;
      const std::size_t start = pos_;
      while (!AtEnd() && IsHexDigit(Peek())) ++pos_;
      const std::string digits(text_.substr(start, pos_ - start));
      errno = 0;
      const unsigned long long value = std::strtoull(digits.c_str(), nullptr, 16);
      if (digits.empty() || errno == ERANGE) return Error("a bad hexadecimal number");
      out->append(std::to_string(value));
      return Status::OK();
    }
    const std::size_t integer_start = pos_;
    while (!AtEnd() && IsDigit(Peek())) ++pos_;
    std::string_view integer = text_.substr(integer_start, pos_ - integer_start);
    while (integer.size() > 1 && integer.front() == '0') integer.remove_prefix(1);
    out->append(integer.empty() ? "0" : std::string(integer));
    if (Peek() == '.') {
      ++pos_;
      out->push_back('.');
      const std::size_t start = pos_;
      while (!AtEnd() && IsDigit(Peek())) ++pos_;
      out->append(pos_ == start ? "0" : std::string(text_.substr(start, pos_ - start)));
    } else if (integer.empty()) {
      return Error("a bad number");
    }
    if (Peek() == 'e' || Peek() == 'E') {
      out->push_back(text_[pos_++]);
      if (Peek() == '+' || Peek() == '-') out->push_back(text_[pos_++]);
      if (!IsDigit(Peek())) return Error("a bad exponent");
      while (!AtEnd() && IsDigit(Peek())) out->push_back(text_[pos_++]);
    }
    return Status::OK();
  }

  // /pattern/flags: a '/' inside [...] does not end the pattern.
  Status Regex(std::string* out) {
    ++pos_;
    std::string pattern;
    bool in_class = false;
    while (true) {
      if (AtEnd() || Peek() == '\n') return Error("a regular expression that never ends");
      const char c = text_[pos_++];
      if (c == '\\') {
        if (AtEnd()) return Error("a regular expression that never ends");
        pattern.push_back(c);
        pattern.push_back(text_[pos_++]);
        continue;
      }
      if (c == '[') in_class = true;
      if (c == ']') in_class = false;
      if (c == '/' && !in_class) break;
      pattern.push_back(c);
    }
    std::string flags;
    while (!AtEnd() && IsNameChar(Peek())) flags.push_back(text_[pos_++]);
    return AppendRegex(JsonQuote(pattern), flags, out);
  }

  // BSON's regular expression options, sorted as Extended JSON writes them.
  Status AppendRegex(const std::string& pattern, std::string flags, std::string* out) {
    for (char flag : flags) {
      if (std::string_view("ilmsux").find(flag) == std::string_view::npos) {
        return Error(std::string("a regular expression option BSON does not have: '") + flag + "'");
      }
    }
    std::sort(flags.begin(), flags.end());
    *out += R"({"$regularExpression":{"pattern":)" + pattern + R"(,"options":")" + flags + "\"}}";
    return Status::OK();
  }

  Status Word(std::string* out) {
    const std::size_t start = pos_;
    std::string name = Name();
    if (name == "true" || name == "false" || name == "null") {
      out->append(name);
      return Status::OK();
    }
    if (name == "undefined") {
      out->append(R"({"$undefined":true})");
      return Status::OK();
    }
    if (name == "NaN" || name == "Infinity") {
      *out += R"({"$numberDouble":")" + name + "\"}";
      return Status::OK();
    }
    if (name == "MinKey" || name == "MaxKey") {
      QUARRY_RETURN_IF_ERROR(SkipSpace());
      if (Peek() == '(') {
        QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> args, Arguments());
        if (!args.empty()) return Error(name + " takes no arguments");
      }
      out->append(name == "MinKey" ? R"({"$minKey":1})" : R"({"$maxKey":1})");
      return Status::OK();
    }
    if (name == "new") {
      QUARRY_RETURN_IF_ERROR(SkipSpace());
      if (!IsNameStart(Peek())) return Error("expected a constructor after 'new'");
      name = Name();
    }
    return Constructor(name, start, out);
  }

  std::string Name() {
    const std::size_t start = pos_;
    while (!AtEnd() && IsNameChar(Peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  StatusWith<std::vector<std::string>> Arguments() {
    ++pos_;  // '('
    std::vector<std::string> args;
    QUARRY_RETURN_IF_ERROR(SkipSpace());
    if (Peek() == ')') {
      ++pos_;
      return args;
    }
    while (true) {
      std::string arg;
      QUARRY_RETURN_IF_ERROR(Value(&arg));
      args.push_back(std::move(arg));
      QUARRY_RETURN_IF_ERROR(SkipSpace());
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == ')') {
        ++pos_;
        return args;
      }
      return Error("expected ',' or ')' after an argument");
    }
  }

  // `name` starts at `start`, where its errors point.
  Status Constructor(const std::string& name, std::size_t start, std::string* out) {
    QUARRY_RETURN_IF_ERROR(SkipSpace());
    if (Peek() != '(') return ErrorAt(start, "unknown name '" + name + "'");
    QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> args, Arguments());
    auto fail = [&](const std::string& what) { return ErrorAt(start, what); };
    auto one = [&](bool string, bool number) {
      return args.size() == 1 && ((string && IsString(args[0])) || (number && IsNumber(args[0])));
    };
    if (name == "ObjectId" || name == "ObjectID") {
      if (!one(true, false)) return fail(name + " takes one string of 24 hexadecimal digits");
      *out += R"({"$oid":)" + args[0] + "}";
      return Status::OK();
    }
    if (name == "Date" || name == "ISODate") {
      if (one(true, false)) {
        *out += R"({"$date":)" + JsonQuote(WithZone(Content(args[0]))) + "}";
        return Status::OK();
      }
      if (!one(false, true)) return fail(name + " takes one date string or milliseconds");
      const double millis = std::strtod(args[0].c_str(), nullptr);
      if (!std::isfinite(millis) || std::fabs(millis) > 8.64e15) {
        return fail(name + "'s milliseconds are out of range");
      }
      *out += R"({"$date":{"$numberLong":")" +
              std::to_string(static_cast<std::int64_t>(std::trunc(millis))) + "\"}}";
      return Status::OK();
    }
    if (name == "NumberInt" || name == "NumberLong" || name == "NumberDecimal") {
      if (!one(true, true)) return fail(name + " takes one number or numeric string");
      const std::string digits = IsString(args[0]) ? std::string(Content(args[0])) : args[0];
      *out += "{\"$" +
              std::string(name == "NumberInt"    ? "numberInt"
                          : name == "NumberLong" ? "numberLong"
                                                 : "numberDecimal") +
              "\":" + JsonQuote(digits) + "}";
      return Status::OK();
    }
    if (name == "Timestamp") {
      if (args.size() != 2 || !IsNumber(args[0]) || !IsNumber(args[1])) {
        return fail("Timestamp takes two numbers: seconds and an increment");
      }
      *out += R"({"$timestamp":{"t":)" + args[0] + R"(,"i":)" + args[1] + "}}";
      return Status::OK();
    }
    if (name == "BinData") {
      if (args.size() != 2 || !IsNumber(args[0]) || !IsString(args[1])) {
        return fail("BinData takes a subtype number and a base64 string");
      }
      const long subtype = std::strtol(args[0].c_str(), nullptr, 10);
      if (subtype < 0 || subtype > 255) return fail("BinData's subtype is out of range");
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02lx", subtype);
      *out += R"({"$binary":{"base64":)" + args[1] + R"(,"subType":")" + hex + "\"}}";
      return Status::OK();
    }
    if (name == "UUID") {
      if (!one(true, false)) return fail("UUID takes one string of 32 hexadecimal digits");
      std::string hex;
      for (char c : Content(args[0])) {
        if (c != '-') hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      }
      if (hex.size() != 32 || !std::all_of(hex.begin(), hex.end(), IsHexDigit)) {
        return fail("UUID takes one string of 32 hexadecimal digits");
      }
      *out += R"({"$uuid":")" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" +
              hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" + hex.substr(20) + "\"}";
      return Status::OK();
    }
    if (name == "DBRef" || name == "Dbref") {
      if (args.size() < 2 || args.size() > 3 || !IsString(args[0]) ||
          (args.size() == 3 && !IsString(args[2]))) {
        return fail(name + " takes a collection name, an id and optionally a database name");
      }
      *out += R"({"$ref":)" + args[0] + R"(,"$id":)" + args[1];
      if (args.size() == 3) *out += R"(,"$db":)" + args[2];
      out->push_back('}');
      return Status::OK();
    }
    if (name == "RegExp") {
      if (args.empty() || args.size() > 2 || !IsString(args[0]) ||
          (args.size() == 2 && !IsString(args[1]))) {
        return fail("RegExp takes a pattern string and optionally a string of options");
      }
      return AppendRegex(args[0], args.size() == 2 ? std::string(Content(args[1])) : "", out);
    }
    return fail("unknown constructor '" + name + "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

StatusWith<std::string> ShellJsonToExtendedJson(std::string_view text) {
  return Rewriter(text).Run();
}

}  // namespace quarry::tools::client
