#include "text/index_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>

#include "bson/builder.h"
#include "text/analyzer.h"

namespace quarry::text {
namespace {

constexpr std::string_view kWildcard = "$**";
constexpr int kTextIndexVersion = 3;

Status CannotCreateIndex(std::string reason) {
  return Status(ErrorCode::kCannotCreateIndex, std::move(reason));
}

bool IsTextValue(bson::ValueView value) {
  return value.type() == bson::Type::kString && value.String() == "text";
}

// The weights a key pattern asks for: its "text" fields (weight 1), none for the stored form.
// Fails for a compound text index, which Quarry does not build.
Status WeightsOfKey(bson::DocumentView key, std::map<std::string, double, std::less<>>* weights) {
  enum { kBefore, kIn, kAfter } text_run = kBefore;  // where the text fields are
  bool compound = false;
  bool expect_score = false;
  for (const bson::Element& field : key) {
    if (expect_score && field.key != kScoreField) {
      return CannotCreateIndex("expected _ftsx after _fts");
    }
    if (field.key == kTermField) {
      if (!IsTextValue(field.value)) return CannotCreateIndex("expecting _fts:\"text\"");
      expect_score = true;
      text_run = kIn;
      continue;
    }
    if (field.key == kScoreField) {
      if (!expect_score) {
        return CannotCreateIndex("text index with reserved fields _fts/_ftsx not allowed");
      }
      if (!field.value.IsNumber() || field.value.AsDouble() != 1) {
        return CannotCreateIndex("expecting _ftsx:1");
      }
      expect_score = false;
      continue;
    }
    if (!IsTextValue(field.value)) {
      if (text_run == kIn) text_run = kAfter;
      compound = true;
      continue;
    }
    if (text_run == kAfter) {
      return CannotCreateIndex("'text' fields in index must all be adjacent");
    }
    text_run = kIn;
    (*weights)[std::string(field.key)] = 1;
  }
  if (expect_score) return CannotCreateIndex("expected _ftsx after _fts");
  if (compound) {
    return CannotCreateIndex(
        "compound text indexes (text fields with other key fields) are not supported by Quarry "
        "yet");
  }
  return Status::OK();
}

Status CheckWeightPath(std::string_view path) {
  if (path == kWildcard) return Status::OK();
  if (path.empty()) return CannotCreateIndex("weight cannot be on an empty field");
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string_view part = path.substr(start, dot - start);
    if (part.empty()) return CannotCreateIndex("weight cannot have empty path component");
    if (part[0] == '$') return CannotCreateIndex("weight cannot have path component with $ prefix");
    if (dot == std::string_view::npos) return Status::OK();
    start = dot + 1;
  }
}

// The `weights` option over those of the key. mongod keeps whole numbers: 2.5 is stored as 2.
Status ParseWeights(bson::ValueView value, std::map<std::string, double, std::less<>>* weights) {
  if (!value.exists()) return Status::OK();
  if (value.type() == bson::Type::kString && value.String() == kWildcard) {
    (*weights)[std::string(kWildcard)] = 1;
    return Status::OK();
  }
  if (value.type() != bson::Type::kDocument) {
    return CannotCreateIndex("text index option 'weights' must be an object");
  }
  for (const bson::Element& field : value.Document()) {
    if (!field.value.IsNumber()) {
      return CannotCreateIndex("weight for text index needs numeric type");
    }
    const double given = field.value.AsDouble();
    const double weight = std::isnan(given) ? 0 : std::trunc(std::clamp(given, -1e10, 1e10));
    if (weight <= 0 || weight >= 100000) {
      return CannotCreateIndex(
          "text index weight must be in the exclusive interval (0,100000) but found: " +
          std::to_string(static_cast<long long>(weight)));
    }
    QUARRY_RETURN_IF_ERROR(CheckWeightPath(field.key));
    (*weights)[std::string(field.key)] = weight;
  }
  return Status::OK();
}

StatusWith<const Language*> ParseLanguage(bson::ValueView value) {
  if (!value.exists()) return FindLanguage("english");
  if (value.type() != bson::Type::kString) {
    return CannotCreateIndex("default_language needs a string type");
  }
  const Language* language = FindLanguage(value.String());
  if (language == nullptr) {
    return CannotCreateIndex("default_language is not valid" + std::string(kSupportedLanguages));
  }
  return language;
}

StatusWith<std::string> ParseLanguageOverride(bson::ValueView value) {
  if (!value.exists()) return std::string("language");
  if (value.type() != bson::Type::kString) {
    return CannotCreateIndex("language_override must be a string");
  }
  const std::string_view name = value.String();
  if (name.empty() || name[0] == '$' || name.find('.') != std::string_view::npos) {
    return CannotCreateIndex("language_override is not valid");
  }
  return std::string(name);
}

Status CheckVersion(bson::ValueView value) {
  if (!value.exists()) return Status::OK();
  if (!value.IsNumber()) {
    return CannotCreateIndex("text index option 'textIndexVersion' must be a number");
  }
  const double version = value.AsDouble();
  if (version == 1 || version == 2) {
    return CannotCreateIndex("textIndexVersion " + value.ToJson() +
                             " is not supported by Quarry: only version 3 is");
  }
  if (version != kTextIndexVersion)
    return CannotCreateIndex("bad textIndexVersion: " + value.ToJson());
  return Status::OK();
}

bool EqualsIgnoringAsciiCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool IsTextOption(std::string_view name) {
  return name == "weights" || name == "default_language" || name == "language_override" ||
         name == "textIndexVersion";
}

}  // namespace

bool TextIndexSpec::IsTextKeyPattern(bson::DocumentView key) {
  for (const bson::Element& field : key) {
    if (IsTextValue(field.value)) return true;
  }
  return false;
}

StatusWith<bson::Document> TextIndexSpec::Normalize(bson::DocumentView spec) {
  std::map<std::string, double, std::less<>> weights;
  QUARRY_RETURN_IF_ERROR(WeightsOfKey(spec.Get("key").Document(), &weights));
  QUARRY_RETURN_IF_ERROR(ParseWeights(spec.Get("weights"), &weights));
  if (weights.empty()) {
    return CannotCreateIndex("text index option 'weights' must specify fields or the wildcard");
  }
  QUARRY_ASSIGN_OR_RETURN(const Language* language, ParseLanguage(spec.Get("default_language")));
  QUARRY_ASSIGN_OR_RETURN(std::string language_override,
                          ParseLanguageOverride(spec.Get("language_override")));
  QUARRY_RETURN_IF_ERROR(CheckVersion(spec.Get("textIndexVersion")));
  bson::ValueView collation = spec.Get("collation");
  const bool simple = collation.type() == bson::Type::kDocument &&
                      collation.Document().Get("locale").type() == bson::Type::kString &&
                      collation.Document().Get("locale").String() == "simple";
  if (collation.exists() && !simple) {
    return CannotCreateIndex("Index type 'text' does not support collation: " +
                             spec.Get("collation").ToJson());
  }
  if (spec.Get("unique").Truthy()) {
    return CannotCreateIndex("unique text indexes are not supported by Quarry");
  }
  bson::DocumentBuilder out;
  for (const bson::Element& field : spec) {
    if (field.key == "key") {
      out.OpenDocument("key");
      out.AppendString(kTermField, "text");
      out.AppendInt32(kScoreField, 1);
      out.Close();
    } else if (!IsTextOption(field.key)) {
      out.Append(field.key, field.value);
    }
  }
  out.OpenDocument("weights");
  for (const auto& [path, weight] : weights)
    out.AppendInt32(path, static_cast<std::int32_t>(weight));
  out.Close();
  bson::ValueView given_language = spec.Get("default_language");
  out.AppendString("default_language",
                   given_language.exists() ? given_language.String() : language->name);
  out.AppendString("language_override", language_override);
  out.AppendInt32("textIndexVersion", kTextIndexVersion);
  return std::move(out).Finish();
}

StatusWith<TextIndexSpec> TextIndexSpec::Parse(bson::DocumentView spec) {
  TextIndexSpec parsed;
  QUARRY_RETURN_IF_ERROR(ParseWeights(spec.Get("weights"), &parsed.weights_));
  // A field the wildcard alone matches weighs 1, whatever weight "$**" was given.
  parsed.wildcard_ = parsed.weights_.erase(std::string(kWildcard)) > 0;
  QUARRY_ASSIGN_OR_RETURN(parsed.default_language_, ParseLanguage(spec.Get("default_language")));
  QUARRY_ASSIGN_OR_RETURN(parsed.language_override_,
                          ParseLanguageOverride(spec.Get("language_override")));
  return parsed;
}

const double* TextIndexSpec::WeightOf(std::string_view path) const {
  auto it = weights_.find(path);
  if (it != weights_.end()) return &it->second;
  static constexpr double kWildcardWeight = 1;
  return wildcard_ ? &kWildcardWeight : nullptr;
}

bool TextIndexSpec::HoldsBelow(std::string_view path) const {
  if (wildcard_) return true;
  // Weighted paths under `path` sort right after `path` + ".".
  std::string below = std::string(path) + ".";
  auto it = weights_.lower_bound(below);
  return it != weights_.end() && it->first.starts_with(below);
}

Status TextIndexSpec::Walk(
    bson::DocumentView doc, std::string_view prefix, const Language* parent,
    const std::function<void(std::string_view, double, const Language&)>& on_text) const {
  const Language* language = parent;
  bson::ValueView override_value = doc.Get(language_override_);
  if (override_value.exists()) {
    if (override_value.type() != bson::Type::kString) {
      return Status(static_cast<ErrorCode>(17261),
                    "found language override field in document with non-string type");
    }
    language = FindLanguage(override_value.String());
    if (language == nullptr) {
      return Status(static_cast<ErrorCode>(17262),
                    "language override unsupported: " + std::string(override_value.String()) +
                        std::string(kSupportedLanguages));
    }
  }
  std::string path;
  for (const bson::Element& field : doc) {
    if (wildcard_ && field.key == language_override_) continue;
    path.assign(prefix);
    if (!path.empty()) path.push_back('.');
    path.append(field.key);
    auto visit = [&](bson::ValueView value) -> Status {
      if (value.type() == bson::Type::kString) {
        if (const double* weight = WeightOf(path)) on_text(value.String(), *weight, *language);
      } else if (value.type() == bson::Type::kDocument && HoldsBelow(path)) {
        return Walk(value.Document(), path, language, on_text);
      }
      return Status::OK();
    };
    if (field.value.type() == bson::Type::kArray) {
      // Elements take the array's path; an array in an array only a wildcard index holds.
      for (const bson::Element& element : field.value.Document()) {
        if (element.value.type() == bson::Type::kArray) {
          if (wildcard_) {
            for (const bson::Element& inner : element.value.Document()) {
              QUARRY_RETURN_IF_ERROR(visit(inner.value));
            }
          }
          continue;
        }
        QUARRY_RETURN_IF_ERROR(visit(element.value));
      }
    } else {
      QUARRY_RETURN_IF_ERROR(visit(field.value));
    }
  }
  return Status::OK();
}

Status TextIndexSpec::ForEachText(
    bson::DocumentView doc,
    const std::function<void(std::string_view, double, const Language&)>& on_text) const {
  return Walk(doc, "", default_language_, on_text);
}

StatusWith<TermScores> TextIndexSpec::ScoreDocument(bson::DocumentView doc) const {
  TermScores scores;
  struct Occurrences {
    double frequency = 0;  // 1 + 1/2 + ... for each repetition
    double next = 1;
    int count = 0;
  };
  std::map<std::string, Occurrences, std::less<>> terms;
  QUARRY_RETURN_IF_ERROR(
      ForEachText(doc, [&](std::string_view raw, double weight, const Language& language) {
        terms.clear();
        int total = 0;
        ForEachTerm(raw, language, Sensitivity{}, true, [&](const std::string& term) {
          Occurrences& seen = terms[term];
          seen.frequency += seen.next;
          seen.next /= 2;
          ++seen.count;
          ++total;
        });
        for (const auto& [term, seen] : terms) {
          const double coefficient = 0.5 * seen.count / total + 0.5;
          // A string that is the term itself (in any ASCII case) scores a tenth more.
          const double whole = EqualsIgnoringAsciiCase(raw, term) ? 1.1 : 1.0;
          scores[term] += weight * seen.frequency * coefficient * whole;
        }
      }));
  return scores;
}

}  // namespace quarry::text
