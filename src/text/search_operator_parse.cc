// $search's operators read from their BSON: each option checked, each error naming its path
// (the operators that hold operators in search_operator_parse_compound.cc).
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "bson/builder.h"
#include "text/search_operator.h"
#include "text/search_operator_parse_internal.h"
#include "text/term_pattern.h"

namespace quarry::text {
namespace internal {

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Status NotYet(std::string what) {
  return Status(ErrorCode::kNotImplemented, std::move(what) + " is not supported by Quarry yet");
}

Status Unknown(std::string_view at, std::string_view key) {
  return Bad("\"" + std::string(at) + "." + std::string(key) + "\" is not a known option");
}

std::optional<std::int64_t> WholeNumber(bson::ValueView value) {
  if (!value.IsNumber() || value.type() == bson::Type::kDecimal128) return std::nullopt;
  const double d = value.AsDouble();
  if (!std::isfinite(d) || std::floor(d) != d) return std::nullopt;
  return value.AsInt64();
}

namespace {

StatusWith<std::vector<std::string>> Strings(bson::ValueView value, const std::string& at) {
  std::vector<std::string> out;
  if (value.type() == bson::Type::kString) {
    out.emplace_back(value.String());
    return out;
  }
  if (value.type() == bson::Type::kArray) {
    for (const bson::Element& e : value.Document()) {
      if (e.value.type() != bson::Type::kString) {
        return Bad("\"" + at + "\" must be a string or an array of strings");
      }
      out.emplace_back(e.value.String());
    }
    if (!out.empty()) return out;
  }
  return Bad("\"" + at + "\" must be a string or a non-empty array of strings");
}

// A field name, {value: <name>}, {value, multi: <its multi analyzer>} where `multi_allowed`, or
// {wildcard: <pattern>}.
StatusWith<std::string> OnePath(bson::ValueView value, const std::string& at, bool multi_allowed) {
  if (value.type() == bson::Type::kString && !value.String().empty()) {
    return std::string(value.String());
  }
  if (value.type() == bson::Type::kDocument && !value.Document().empty()) {
    std::string_view name, wildcard, multi;
    for (const bson::Element& e : value.Document()) {
      if (e.key != "wildcard" && e.key != "value" && e.key != "multi") return Unknown(at, e.key);
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Bad("\"" + at + "." + std::string(e.key) + "\" must be a non-empty string");
      }
      (e.key == "value" ? name : e.key == "multi" ? multi : wildcard) = e.value.String();
    }
    if (!wildcard.empty() && (!name.empty() || !multi.empty())) {
      return Bad("\"" + at + "\" takes a wildcard alone");
    }
    if (multi.empty()) return std::string(name.empty() ? wildcard : name);
    if (!multi_allowed) {
      return Bad("\"" + at +
                 ".multi\": only text, phrase, wildcard and regex search a multi "
                 "analyzer");
    }
    if (name.empty()) return Bad("\"" + at + ".value\" is required with multi");
    return MultiPath(name, multi);
  }
  return Bad("\"" + at +
             "\" must be a field name, {value, multi}, {wildcard: <pattern>} or an "
             "array of them");
}

}  // namespace

StatusWith<std::vector<std::string>> Paths(bson::ValueView value, const std::string& at,
                                           bool multi_allowed) {
  std::vector<std::string> out;
  if (value.type() == bson::Type::kArray) {
    std::size_t i = 0;
    for (const bson::Element& e : value.Document()) {
      QUARRY_ASSIGN_OR_RETURN(
          std::string path, OnePath(e.value, at + "[" + std::to_string(i++) + "]", multi_allowed));
      out.push_back(std::move(path));
    }
    if (out.empty()) return Bad("\"" + at + "\" must not be empty");
    return out;
  }
  QUARRY_ASSIGN_OR_RETURN(std::string path, OnePath(value, at, multi_allowed));
  out.push_back(std::move(path));
  return out;
}

namespace {

// boost: {path: <numeric field>, undefined: <n, default 0>}: the score times the field's value.
Status ParseBoostByPath(bson::DocumentView options, const std::string& at, SearchOperator* op) {
  op->score.kind = ScoreModifier::Kind::kBoostByPath;
  op->score.value = 0;
  for (const bson::Element& o : options) {
    if (o.key == "path") {
      if (o.value.type() != bson::Type::kString || o.value.String().empty()) {
        return Bad("\"" + at + ".path\" must be a field name");
      }
      op->score.path = std::string(o.value.String());
    } else if (o.key == "undefined") {
      if (!o.value.IsNumber() || !std::isfinite(o.value.AsDouble())) {
        return Bad("\"" + at + ".undefined\" must be a number");
      }
      op->score.value = o.value.AsDouble();
    } else if (o.key == "value") {
      return Bad("\"" + at + "\" takes value or path, not both");
    } else {
      return Unknown(at, o.key);
    }
  }
  return Status::OK();
}

// dismax: {tieBreakerScore: <0 to 1, default 1>}; only compound's score takes it.
Status ParseDismax(bson::DocumentView options, const std::string& at, SearchOperator* op) {
  if (op->kind != SearchOperator::Kind::kCompound) {
    return Bad("\"" + at + "\": only compound's score takes dismax");
  }
  op->score.kind = ScoreModifier::Kind::kDismax;
  op->score.value = 1;
  for (const bson::Element& o : options) {
    if (o.key != "tieBreakerScore") return Unknown(at, o.key);
    if (!o.value.IsNumber() || !(o.value.AsDouble() >= 0 && o.value.AsDouble() <= 1)) {
      return Bad("\"" + at + ".tieBreakerScore\" must be a number from 0 to 1");
    }
    op->score.value = o.value.AsDouble();
  }
  return Status::OK();
}

}  // namespace

// score: {boost: {value: <n>} | {path, undefined}} | {constant: {value: <n>}} |
// {function: <expression>} | {dismax: {tieBreakerScore}} (compound's).
Status ParseScore(bson::ValueView value, const std::string& at, SearchOperator* op) {
  if (value.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  bool seen = false;
  for (const bson::Element& e : value.Document()) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "embedded") return Bad("\"" + inner + "\" belongs to embeddedDocument's score");
    if (e.key != "boost" && e.key != "constant" && e.key != "function" && e.key != "dismax") {
      return Unknown(at, e.key);
    }
    if (seen) return Bad("\"" + at + "\" takes one of boost, constant, function and dismax");
    seen = true;
    if (e.key == "function") {
      QUARRY_ASSIGN_OR_RETURN(ScoreFunction function, ScoreFunction::Parse(e.value, inner));
      op->score.kind = ScoreModifier::Kind::kFunction;
      op->score.function = std::make_shared<const ScoreFunction>(std::move(function));
      continue;
    }
    if (e.value.type() != bson::Type::kDocument) return Bad("\"" + inner + "\" must be a document");
    bson::DocumentView options = e.value.Document();
    if (e.key == "dismax") {
      QUARRY_RETURN_IF_ERROR(ParseDismax(options, inner, op));
      continue;
    }
    if (e.key == "boost" && options.Get("path").exists()) {
      QUARRY_RETURN_IF_ERROR(ParseBoostByPath(options, inner, op));
      continue;
    }
    for (const bson::Element& o : options) {
      if (o.key != "value") return Unknown(inner, o.key);
      if (!o.value.IsNumber() || !(o.value.AsDouble() > 0) || !std::isfinite(o.value.AsDouble())) {
        return Bad("\"" + inner + ".value\" must be a positive number");
      }
      op->score.value = o.value.AsDouble();
    }
    if (!options.Get("value").exists()) {
      return Bad("\"" + inner + ".value\" is required" +
                 (e.key == "boost" ? std::string(" (or path)") : std::string()));
    }
    op->score.kind =
        e.key == "boost" ? ScoreModifier::Kind::kBoost : ScoreModifier::Kind::kConstant;
  }
  return Status::OK();
}

namespace {

StatusWith<FuzzyOptions> ParseFuzzy(bson::ValueView value, const std::string& at) {
  if (value.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  FuzzyOptions fuzzy;
  for (const bson::Element& e : value.Document()) {
    std::optional<std::int64_t> n = WholeNumber(e.value);
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "maxEdits") {
      if (!n.has_value() || *n < 1 || *n > 2) return Bad("\"" + inner + "\" must be 1 or 2");
      fuzzy.max_edits = static_cast<int>(*n);
    } else if (e.key == "prefixLength") {
      if (!n.has_value() || *n < 0) return Bad("\"" + inner + "\" must be a non-negative integer");
      fuzzy.prefix_length = static_cast<std::size_t>(*n);
    } else if (e.key == "maxExpansions") {
      if (!n.has_value() || *n < 1) return Bad("\"" + inner + "\" must be a positive integer");
      fuzzy.max_expansions = static_cast<std::size_t>(*n);
    } else {
      return Unknown(at, e.key);
    }
  }
  return fuzzy;
}

}  // namespace

// A compound clause: one operator document or an array of them.
Status ParseClauses(bson::ValueView value, const std::string& at,
                    std::vector<SearchOperator>* out) {
  std::vector<std::pair<std::string, bson::DocumentView>> clauses;
  if (value.type() == bson::Type::kDocument) {
    clauses.emplace_back(at, value.Document());
  } else if (value.type() == bson::Type::kArray) {
    std::size_t i = 0;
    for (const bson::Element& e : value.Document()) {
      const std::string inner = at + "[" + std::to_string(i++) + "]";
      if (e.value.type() != bson::Type::kDocument)
        return Bad("\"" + inner + "\" must be a document");
      clauses.emplace_back(inner, e.value.Document());
    }
  } else {
    return Bad("\"" + at + "\" must be an operator document or an array of them");
  }
  for (const auto& [inner, clause] : clauses) {
    auto first = clause.begin();
    if (first == clause.end()) return Bad("\"" + inner + "\" must name an operator");
    if (std::next(first) != clause.end()) {
      return Bad("\"" + inner + "\" must name exactly one operator");
    }
    QUARRY_ASSIGN_OR_RETURN(SearchOperator op, ParseAt(first->key, first->value,
                                                       inner + "." + std::string(first->key)));
    out->push_back(std::move(op));
  }
  return Status::OK();
}

}  // namespace internal

namespace {

using internal::Bad;
using internal::NotYet;
using internal::ParseFuzzy;
using internal::ParseScore;
using internal::Paths;
using internal::Strings;
using internal::Unknown;
using internal::WholeNumber;

// Paths for an operator that reads values held whole, which does not resolve wildcards yet.
StatusWith<std::vector<std::string>> PathsWithoutWildcards(bson::ValueView value,
                                                           const std::string& at,
                                                           std::string_view name) {
  QUARRY_ASSIGN_OR_RETURN(std::vector<std::string> paths, Paths(value, at));
  for (const std::string& path : paths) {
    if (path.find('*') != std::string::npos) {
      return NotYet("\"" + at + "\" with a wildcard for " + std::string(name));
    }
  }
  return paths;
}

// moreLikeThis: {like: <document or non-empty array of documents>, score}.
Status ParseMoreLikeThis(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "like") {
      if (e.value.type() == bson::Type::kDocument) {
        op->like.push_back(bson::Document::Copy(e.value.Document()));
        continue;
      }
      if (e.value.type() != bson::Type::kArray) {
        return Bad("\"" + inner + "\" must be a document or an array of documents");
      }
      for (const bson::Element& like : e.value.Document()) {
        if (like.value.type() != bson::Type::kDocument) {
          return Bad("\"" + inner + "\" must hold documents only");
        }
        op->like.push_back(bson::Document::Copy(like.value.Document()));
      }
      if (op->like.empty()) return Bad("\"" + inner + "\" must not be empty");
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->like.empty()) return Bad("\"" + at + ".like\" is required");
  return Status::OK();
}

Status ParseTextOrPhrase(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  const bool autocomplete = op->kind == SearchOperator::Kind::kAutocomplete;
  const bool text = op->kind == SearchOperator::Kind::kText || autocomplete;
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "query") {
      QUARRY_ASSIGN_OR_RETURN(op->queries, Strings(e.value, inner));
    } else if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(op->paths, Paths(e.value, inner, !autocomplete));
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else if (!autocomplete && e.key == "synonyms") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Bad("\"" + inner + "\" must name a synonym mapping");
      }
      op->synonyms = std::string(e.value.String());
    } else if (text && e.key == "fuzzy") {
      QUARRY_ASSIGN_OR_RETURN(op->fuzzy, ParseFuzzy(e.value, inner));
    } else if (autocomplete && e.key == "tokenOrder") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "any" && e.value.String() != "sequential")) {
        return Bad("\"" + inner + "\" must be \"any\" or \"sequential\"");
      }
      op->sequential = e.value.String() == "sequential";
    } else if (text && !autocomplete && e.key == "matchCriteria") {
      if (e.value.type() != bson::Type::kString ||
          (e.value.String() != "any" && e.value.String() != "all")) {
        return Bad("\"" + inner + "\" must be \"any\" or \"all\"");
      }
      op->match_criteria = e.value.String() == "all" ? SearchOperator::MatchCriteria::kAll
                                                     : SearchOperator::MatchCriteria::kAny;
    } else if (!text && e.key == "slop") {
      std::optional<std::int64_t> slop = WholeNumber(e.value);
      if (!slop.has_value() || *slop < 0)
        return Bad("\"" + inner + "\" must be a non-negative integer");
      op->slop = static_cast<std::uint32_t>(std::min<std::int64_t>(*slop, 1 << 20));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->queries.empty()) return Bad("\"" + at + ".query\" is required");
  if (op->paths.empty()) return Bad("\"" + at + ".path\" is required");
  if (op->fuzzy.has_value() && !op->synonyms.empty()) {
    return Bad("\"" + at + "\" takes at most one of fuzzy and synonyms");
  }
  if (op->fuzzy.has_value() && op->sequential) {
    return NotYet("\"" + at + "\" with both fuzzy and tokenOrder \"sequential\"");
  }
  if (autocomplete) {
    for (const std::string& path : op->paths) {
      if (path.find('*') != std::string::npos)
        return Bad("\"" + at + ".path\" cannot be a wildcard");
    }
  }
  return Status::OK();
}

// A value equals, in and range compare: a kind the index holds whole.
Status CheckValue(bson::ValueView value, const std::string& at) {
  if (ValueKindOf(value) == 0) {
    return Bad("\"" + at + "\" must be a boolean, objectId, number, date, string or UUID");
  }
  return Status::OK();
}

Status ParseValueOperator(std::string_view name, bson::DocumentView spec, const std::string& at,
                          SearchOperator* op) {
  bson::ArrayBuilder values;
  bson::DocumentBuilder bounds;
  bool has_value = false, has_lower = false, has_upper = false;
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "path") {
      if (name == "exists" || name == "equals") {
        if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
          return Bad("\"" + inner + "\" must be a field name");
        }
        op->paths = {std::string(e.value.String())};
      } else {
        QUARRY_ASSIGN_OR_RETURN(op->paths, PathsWithoutWildcards(e.value, inner, name));
      }
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else if (e.key == "value" && (name == "equals" || name == "in")) {
      if (name == "in" && e.value.type() == bson::Type::kArray) {
        std::size_t i = 0;
        unsigned kind = 0;
        for (const bson::Element& v : e.value.Document()) {
          QUARRY_RETURN_IF_ERROR(CheckValue(v.value, inner + "[" + std::to_string(i++) + "]"));
          if (kind != 0 && ValueKindOf(v.value) != kind) {
            return Bad("\"" + inner + "\" must hold values of one type");
          }
          kind = ValueKindOf(v.value);
          values.Append(v.value);
        }
        if (i == 0) return Bad("\"" + inner + "\" must not be empty");
      } else {
        // equals null: the documents holding null at the path (not those missing it).
        if (e.value.type() != bson::Type::kNull) QUARRY_RETURN_IF_ERROR(CheckValue(e.value, inner));
        values.Append(e.value);
      }
      has_value = true;
    } else if (name == "range" &&
               (e.key == "gt" || e.key == "gte" || e.key == "lt" || e.key == "lte")) {
      QUARRY_RETURN_IF_ERROR(CheckValue(e.value, inner));
      if (e.value.type() == bson::Type::kBool) return Bad("\"" + inner + "\" cannot be a boolean");
      bool& seen = e.key[0] == 'g' ? has_lower : has_upper;
      if (seen) return Bad("\"" + at + "\" takes one of gt and gte, and one of lt and lte");
      seen = true;
      bounds.Append(e.key, e.value);
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->paths.empty()) return Bad("\"" + at + ".path\" is required");
  if ((name == "equals" || name == "in") && !has_value) {
    return Bad("\"" + at + ".value\" is required");
  }
  if (name == "range") {
    if (!has_lower && !has_upper) return Bad("\"" + at + "\" needs gt, gte, lt or lte");
    op->values = std::move(bounds).Finish();
    const bson::DocumentView b = op->values.view();
    auto it = b.begin();
    if (has_lower && has_upper && ValueKindOf(it->value) != ValueKindOf(std::next(it)->value)) {
      return Bad("\"" + at + "\" bounds must be of one type");
    }
  } else {
    op->values = std::move(values).Finish();
  }
  return Status::OK();
}

// wildcard and regex: {query: <pattern or patterns>, path, allowAnalyzedField, score}.
Status ParsePatternOperator(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "query") {
      QUARRY_ASSIGN_OR_RETURN(op->queries, Strings(e.value, inner));
    } else if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(op->paths, Paths(e.value, inner, /*multi_allowed=*/true));
    } else if (e.key == "allowAnalyzedField") {
      if (e.value.type() != bson::Type::kBool) return Bad("\"" + inner + "\" must be a boolean");
      op->allow_analyzed_field = e.value.Bool();
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->queries.empty()) return Bad("\"" + at + ".query\" is required");
  if (op->paths.empty()) return Bad("\"" + at + ".path\" is required");
  for (const std::string& query : op->queries) {
    StatusWith<TermPattern> pattern = op->kind == SearchOperator::Kind::kWildcard
                                          ? TermPattern::Wildcard(query)
                                          : TermPattern::Regex(query);
    if (!pattern.ok()) {
      return Status(pattern.status().code(),
                    "\"" + at + ".query\": " + std::string(pattern.status().reason()));
    }
  }
  return Status::OK();
}

// near: {path, origin: <number or date>, pivot: <positive number>, score}.
Status ParseNear(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  bool has_pivot = false;
  bson::DocumentBuilder origin;
  bool has_origin = false;
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(op->paths, PathsWithoutWildcards(e.value, inner, "near"));
    } else if (e.key == "origin") {
      if (e.value.type() == bson::Type::kDocument && !GeoPointOf(e.value).has_value()) {
        return Bad("\"" + inner + "\" must be a GeoJSON Point: {type: \"Point\", coordinates: " +
                   "[<lng -180..180>, <lat -90..90>]}");
      }
      if (e.value.type() != bson::Type::kDocument && ValueKindOf(e.value) != kNumberValues &&
          ValueKindOf(e.value) != kDateValues) {
        return Bad("\"" + inner + "\" must be a number, a date or a GeoJSON Point");
      }
      origin.Append("origin", e.value);
      has_origin = true;
    } else if (e.key == "pivot") {
      if (!e.value.IsNumber() || !(e.value.AsDouble() > 0) || !std::isfinite(e.value.AsDouble())) {
        return Bad("\"" + inner + "\" must be a positive number");
      }
      op->pivot = e.value.AsDouble();
      has_pivot = true;
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->paths.empty()) return Bad("\"" + at + ".path\" is required");
  if (!has_origin) return Bad("\"" + at + ".origin\" is required");
  if (!has_pivot) return Bad("\"" + at + ".pivot\" is required");
  op->values = std::move(origin).Finish();
  return Status::OK();
}

// geoWithin: {path, circle | box | geometry, score}.
Status ParseGeoWithin(bson::DocumentView spec, const std::string& at, SearchOperator* op) {
  for (const bson::Element& e : spec) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(op->paths, PathsWithoutWildcards(e.value, inner, "geoWithin"));
    } else if (e.key == "circle" || e.key == "box" || e.key == "geometry") {
      if (op->geo_region != nullptr) {
        return Bad("\"" + at + "\" takes one of circle, box and geometry");
      }
      QUARRY_ASSIGN_OR_RETURN(GeoRegion region, GeoRegion::Parse(e.key, e.value, inner));
      op->geo_region = std::make_shared<const GeoRegion>(std::move(region));
    } else if (e.key == "score") {
      QUARRY_RETURN_IF_ERROR(ParseScore(e.value, inner, op));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (op->paths.empty()) return Bad("\"" + at + ".path\" is required");
  if (op->geo_region == nullptr) return Bad("\"" + at + "\" needs circle, box or geometry");
  return Status::OK();
}

using Kind = SearchOperator::Kind;
// Each operator given as a document: its kind and the reader of its options (the name is
// passed on for the value operators, whose options differ by name).
using Read = Status (*)(std::string_view name, bson::DocumentView spec, const std::string& at,
                        SearchOperator* op);
struct Reader {
  std::string_view name;
  Kind kind;
  Read read;
};
constexpr Read kTextOrPhrase = [](std::string_view, bson::DocumentView s, const std::string& a,
                                  SearchOperator* op) { return ParseTextOrPhrase(s, a, op); };
constexpr Read kValue = [](std::string_view n, bson::DocumentView s, const std::string& a,
                           SearchOperator* op) { return ParseValueOperator(n, s, a, op); };
constexpr Read kPattern = [](std::string_view, bson::DocumentView s, const std::string& a,
                             SearchOperator* op) { return ParsePatternOperator(s, a, op); };
constexpr Reader kReaders[] = {
    {"text", Kind::kText, kTextOrPhrase},
    {"autocomplete", Kind::kAutocomplete, kTextOrPhrase},
    {"phrase", Kind::kPhrase, kTextOrPhrase},
    {"compound", Kind::kCompound,
     [](std::string_view, bson::DocumentView s, const std::string& a, SearchOperator* op) {
       return internal::ParseCompound(s, a, op);
     }},
    {"equals", Kind::kEquals, kValue},
    {"range", Kind::kRange, kValue},
    {"in", Kind::kIn, kValue},
    {"exists", Kind::kExists, kValue},
    {"wildcard", Kind::kWildcard, kPattern},
    {"regex", Kind::kRegex, kPattern},
    {"near", Kind::kNear,
     [](std::string_view, bson::DocumentView s, const std::string& a, SearchOperator* op) {
       return ParseNear(s, a, op);
     }},
    {"geoWithin", Kind::kGeoWithin,
     [](std::string_view, bson::DocumentView s, const std::string& a, SearchOperator* op) {
       return ParseGeoWithin(s, a, op);
     }},
    {"embeddedDocument", Kind::kEmbeddedDocument,
     [](std::string_view, bson::DocumentView s, const std::string& a, SearchOperator* op) {
       return internal::ParseEmbeddedDocument(s, a, op);
     }},
    {"moreLikeThis", Kind::kMoreLikeThis,
     [](std::string_view, bson::DocumentView s, const std::string& a, SearchOperator* op) {
       return ParseMoreLikeThis(s, a, op);
     }},
};

}  // namespace

StatusWith<SearchOperator> internal::ParseAt(std::string_view name, bson::ValueView spec,
                                             const std::string& at) {
  if (name == "queryString") return ParseQueryStringOperator(spec, at);
  if (name == "geoShape") {
    return NotYet("the $search operator \"geoShape\" (it needs a geo field's indexShapes)");
  }
  if (std::find(kNotYetOperators.begin(), kNotYetOperators.end(), name) != kNotYetOperators.end()) {
    return NotYet("the $search operator \"" + std::string(name) + "\"");
  }
  for (const Reader& reader : kReaders) {
    if (reader.name != name) continue;
    if (spec.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
    SearchOperator op;
    op.kind = reader.kind;
    QUARRY_RETURN_IF_ERROR(reader.read(name, spec.Document(), at, &op));
    return op;
  }
  return Bad("\"" + std::string(name) + "\" is not a $search operator");
}

using internal::kNotYetOperators;

bool IsSearchOperatorName(std::string_view name) {
  return name == "queryString" || name == "geoShape" ||
         std::any_of(std::begin(kReaders), std::end(kReaders),
                     [&](const Reader& reader) { return reader.name == name; }) ||
         std::find(kNotYetOperators.begin(), kNotYetOperators.end(), name) !=
             kNotYetOperators.end();
}

StatusWith<SearchOperator> ParseSearchOperator(std::string_view name, bson::ValueView spec) {
  return internal::ParseAt(name, spec, std::string(name));
}

StatusWith<std::vector<std::string>> ParseSearchPaths(bson::ValueView value, const std::string& at,
                                                      bool multi_allowed) {
  return internal::Paths(value, at, multi_allowed);
}

}  // namespace quarry::text
