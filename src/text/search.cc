#include "text/search.h"

#include <algorithm>

namespace quarry::text {
namespace {

Status BadValue(std::string reason) { return Status(ErrorCode::kBadValue, std::move(reason)); }

// As mongod's search parser: a tab is text, not whitespace.
bool IsQueryWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

Status WrongType(std::string_view field, std::string_view expected, bson::ValueView value) {
  return Status(ErrorCode::kTypeMismatch, "\"" + std::string(field) +
                                              "\" had the wrong type. Expected " +
                                              std::string(expected) + ", found " +
                                              std::string(bson::TypeAlias(value.type())));
}

// One piece of a search string: a run of text, or a '-' or '"', and whether whitespace (or the
// string's start) came right before it.
struct Piece {
  enum Kind { kText, kMinus, kQuote } kind;
  std::string_view text;
  std::size_t offset;
  bool after_whitespace;
};

std::vector<Piece> PiecesOf(std::string_view search) {
  std::vector<Piece> pieces;
  bool after_whitespace = true;
  std::size_t i = 0;
  while (i < search.size()) {
    const char c = search[i];
    if (IsQueryWhitespace(c)) {
      after_whitespace = true;
      ++i;
      continue;
    }
    if (c == '-' || c == '"') {
      pieces.push_back(
          {c == '-' ? Piece::kMinus : Piece::kQuote, search.substr(i, 1), i, after_whitespace});
      ++i;
    } else {
      const std::size_t start = i;
      while (i < search.size() && !IsQueryWhitespace(search[i]) && search[i] != '-' &&
             search[i] != '"') {
        ++i;
      }
      pieces.push_back({Piece::kText, search.substr(start, i - start), start, after_whitespace});
    }
    after_whitespace = false;
  }
  return pieces;
}

}  // namespace

StatusWith<TextSearch> TextSearch::Parse(bson::ValueView argument) {
  if (argument.type() != bson::Type::kDocument) return BadValue("$text expects an object");
  TextSearch parsed;
  bool has_search = false;
  for (const bson::Element& field : argument.Document()) {
    if (field.key == "$search") {
      if (field.value.type() != bson::Type::kString) {
        return WrongType(field.key, "string", field.value);
      }
      parsed.search = std::string(field.value.String());
      has_search = true;
    } else if (field.key == "$language") {
      if (field.value.type() != bson::Type::kString) {
        return WrongType(field.key, "string", field.value);
      }
      parsed.language = std::string(field.value.String());
    } else if (field.key == "$caseSensitive") {
      if (field.value.type() != bson::Type::kBool) return WrongType(field.key, "bool", field.value);
      parsed.sensitivity.case_sensitive = field.value.Bool();
    } else if (field.key == "$diacriticSensitive") {
      if (field.value.type() != bson::Type::kBool) return WrongType(field.key, "bool", field.value);
      parsed.sensitivity.diacritic_sensitive = field.value.Bool();
    } else {
      return BadValue("extra fields in $text");
    }
  }
  if (!has_search) return Status(ErrorCode::kNoSuchKey, "Missing expected field \"$search\"");
  return parsed;
}

StatusWith<AnalyzedSearch> Analyze(const TextSearch& search, const Language& default_language) {
  AnalyzedSearch out;
  out.sensitivity = search.sensitivity;
  out.language = &default_language;
  if (search.language.has_value()) {
    out.language = FindLanguage(*search.language);
    if (out.language == nullptr) {
      return BadValue("unsupported language: \"" + *search.language +
                      "\" for text index version 3" + std::string(kSupportedLanguages));
    }
  }
  const Language& language = *out.language;
  auto add_terms = [&](std::string_view text, bool negated) {
    ForEachTerm(text, language, Sensitivity{}, true, [&](const std::string& term) {
      if (!negated) out.index_terms.insert(term);
    });
    ForEachTerm(text, language, search.sensitivity, true, [&](const std::string& term) {
      (negated ? out.negated_terms : out.positive_terms).insert(term);
    });
  };
  // A '-' right after whitespace negates the terms or phrase it touches, up to the next
  // whitespace ("-a-b" negates both); inside a phrase it is text. A phrase's terms are searched
  // for as positive terms unless the phrase is negated.
  bool negating = false;
  bool in_phrase = false;
  std::size_t phrase_start = 0;
  for (const Piece& piece : PiecesOf(search.search)) {
    switch (piece.kind) {
      case Piece::kText:
        if (negating && piece.after_whitespace && !in_phrase) negating = false;
        if (!(in_phrase && negating)) add_terms(piece.text, negating && !in_phrase);
        break;
      case Piece::kMinus:
        if (!in_phrase && piece.after_whitespace) negating = true;
        break;
      case Piece::kQuote:
        if (in_phrase) {
          std::string phrase(search.search.substr(phrase_start, piece.offset - phrase_start));
          (negating ? out.negated_phrases : out.positive_phrases).push_back(std::move(phrase));
          in_phrase = false;
        } else {
          if (negating && piece.after_whitespace) negating = false;
          in_phrase = true;
          phrase_start = piece.offset + 1;
        }
        break;
    }
  }
  return out;
}

StatusWith<bool> MatchesDocument(const AnalyzedSearch& search, const TextIndexSpec& index,
                                 bson::DocumentView doc) {
  const bool sensitive =
      search.sensitivity.case_sensitive || search.sensitivity.diacritic_sensitive;
  if (search.negated_terms.empty() && search.positive_phrases.empty() &&
      search.negated_phrases.empty() && !sensitive) {
    return true;
  }
  bool negated_term = false;
  bool positive_term = false;
  std::vector<bool> phrase_found(search.positive_phrases.size(), false);
  bool negated_phrase = false;
  std::vector<std::string> positive_phrases, negated_phrases;
  for (const std::string& phrase : search.positive_phrases) {
    positive_phrases.push_back(Normalize(phrase, search.sensitivity));
  }
  for (const std::string& phrase : search.negated_phrases) {
    negated_phrases.push_back(Normalize(phrase, search.sensitivity));
  }
  QUARRY_RETURN_IF_ERROR(
      index.ForEachText(doc, [&](std::string_view raw, double, const Language& language) {
        if (!search.negated_terms.empty() || sensitive) {
          ForEachTerm(raw, language, search.sensitivity, false, [&](const std::string& term) {
            if (search.negated_terms.contains(term)) negated_term = true;
            if (search.positive_terms.contains(term)) positive_term = true;
          });
        }
        if (positive_phrases.empty() && negated_phrases.empty()) return;
        const std::string text = Normalize(raw, search.sensitivity);
        for (std::size_t i = 0; i < positive_phrases.size(); ++i) {
          if (text.find(positive_phrases[i]) != std::string::npos) phrase_found[i] = true;
        }
        for (const std::string& phrase : negated_phrases) {
          if (text.find(phrase) != std::string::npos) negated_phrase = true;
        }
      }));
  if (negated_term || negated_phrase) return false;
  if (sensitive && !positive_term) return false;
  return std::ranges::all_of(phrase_found, [](bool found) { return found; });
}

}  // namespace quarry::text
