#include "text/score_function.h"

#include <cmath>
#include <optional>
#include <utility>

namespace quarry::text {
namespace {

// Deeper expressions answer BadValue rather than recurse without bound.
constexpr int kMaxDepth = 64;

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

Status Unknown(const std::string& at, std::string_view key) {
  return Bad("\"" + at + "." + std::string(key) + "\" is not a known option");
}

std::optional<double> FiniteNumber(bson::ValueView value) {
  if (!value.IsNumber() || value.type() == bson::Type::kDecimal128) return std::nullopt;
  const double d = value.AsDouble();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

StatusWith<double> RequiredNumber(bson::ValueView value, const std::string& at) {
  std::optional<double> number = FiniteNumber(value);
  if (!number.has_value()) return Bad("\"" + at + "\" must be a finite number");
  return *number;
}

constexpr std::string_view kExpressions =
    "add, constant, gauss, log, log1p, multiply, path or score";

}  // namespace

StatusWith<ScoreFunction> ScoreFunction::Parse(bson::ValueView value, const std::string& at) {
  ScoreFunction function;
  QUARRY_ASSIGN_OR_RETURN(function.root_, ParseNode(value, at, 0));
  return function;
}

StatusWith<ScoreFunction::Node> ScoreFunction::ParseNode(bson::ValueView value,
                                                         const std::string& at, int depth) {
  if (depth > kMaxDepth) {
    return Bad("\"" + at + "\" nests expressions more than " + std::to_string(kMaxDepth) + " deep");
  }
  if (value.type() != bson::Type::kDocument || value.Document().empty()) {
    return Bad("\"" + at +
               "\" must be a document naming one expression: " + std::string(kExpressions));
  }
  const bson::DocumentView spec = value.Document();
  if (std::next(spec.begin()) != spec.end()) {
    return Bad("\"" + at + "\" must name exactly one expression: " + std::string(kExpressions));
  }
  const bson::Element e = *spec.begin();
  const std::string inner = at + "." + std::string(e.key);
  Node node;
  if (e.key == "add" || e.key == "multiply") {
    node.kind = e.key == "add" ? Kind::kAdd : Kind::kMultiply;
    if (e.value.type() != bson::Type::kArray) {
      return Bad("\"" + inner + "\" must be an array of expressions");
    }
    std::size_t i = 0;
    for (const bson::Element& argument : e.value.Document()) {
      QUARRY_ASSIGN_OR_RETURN(
          Node child,
          ParseNode(argument.value, inner + "[" + std::to_string(i++) + "]", depth + 1));
      node.arguments.push_back(std::move(child));
    }
    if (node.arguments.size() < 2) {
      return Bad("\"" + inner + "\" must have at least two arguments");
    }
  } else if (e.key == "constant") {
    node.kind = Kind::kConstant;
    QUARRY_ASSIGN_OR_RETURN(node.constant, RequiredNumber(e.value, inner));
  } else if (e.key == "gauss") {
    return ParseGauss(e.value, inner);
  } else if (e.key == "log" || e.key == "log1p") {
    node.kind = e.key == "log" ? Kind::kLog : Kind::kLog1p;
    QUARRY_ASSIGN_OR_RETURN(Node argument, ParseNode(e.value, inner, depth + 1));
    node.arguments.push_back(std::move(argument));
  } else if (e.key == "path") {
    return ParsePath(e.value, inner);
  } else if (e.key == "score") {
    if (e.value.type() != bson::Type::kString || e.value.String() != "relevance") {
      return Bad("\"" + inner + "\" must be \"relevance\"");
    }
    node.kind = Kind::kRelevance;
  } else {
    return Unknown(at, e.key);
  }
  return node;
}

// path: "<field>" or {value: "<field>", undefined: <number where the document holds none, 0>}.
StatusWith<ScoreFunction::Node> ScoreFunction::ParsePath(bson::ValueView value,
                                                         const std::string& at) {
  Node node;
  node.kind = Kind::kPath;
  if (value.type() == bson::Type::kString && !value.String().empty()) {
    node.path = std::string(value.String());
    return node;
  }
  if (value.type() != bson::Type::kDocument) {
    return Bad("\"" + at + "\" must be a field name or {value, undefined}");
  }
  for (const bson::Element& e : value.Document()) {
    if (e.key == "value") {
      if (e.value.type() != bson::Type::kString || e.value.String().empty()) {
        return Bad("\"" + at + ".value\" must be a field name");
      }
      node.path = std::string(e.value.String());
    } else if (e.key == "undefined") {
      QUARRY_ASSIGN_OR_RETURN(node.constant, RequiredNumber(e.value, at + ".undefined"));
    } else {
      return Unknown(at, e.key);
    }
  }
  if (node.path.empty()) return Bad("\"" + at + ".value\" is required");
  return node;
}

// gauss: {path, origin, scale (not 0), offset (0), decay (between 0 and 1, 0.5)}.
StatusWith<ScoreFunction::Node> ScoreFunction::ParseGauss(bson::ValueView value,
                                                          const std::string& at) {
  if (value.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  Node node;
  node.kind = Kind::kGauss;
  bool has_path = false, has_origin = false, has_scale = false;
  for (const bson::Element& e : value.Document()) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == "path") {
      QUARRY_ASSIGN_OR_RETURN(Node path, ParsePath(e.value, inner));
      node.arguments = {std::move(path)};
      has_path = true;
    } else if (e.key == "origin") {
      QUARRY_ASSIGN_OR_RETURN(node.origin, RequiredNumber(e.value, inner));
      has_origin = true;
    } else if (e.key == "scale") {
      QUARRY_ASSIGN_OR_RETURN(node.scale, RequiredNumber(e.value, inner));
      if (node.scale == 0) return Bad("\"" + inner + "\" must not be 0");
      has_scale = true;
    } else if (e.key == "offset") {
      QUARRY_ASSIGN_OR_RETURN(node.offset, RequiredNumber(e.value, inner));
    } else if (e.key == "decay") {
      QUARRY_ASSIGN_OR_RETURN(node.decay, RequiredNumber(e.value, inner));
      if (!(node.decay > 0 && node.decay < 1)) {
        return Bad("\"" + inner + "\" must be between 0 and 1 (exclusive)");
      }
    } else {
      return Unknown(at, e.key);
    }
  }
  if (!has_path) return Bad("\"" + at + ".path\" is required");
  if (!has_origin) return Bad("\"" + at + ".origin\" is required");
  if (!has_scale) return Bad("\"" + at + ".scale\" is required");
  return node;
}

std::vector<std::string> ScoreFunction::Paths() const {
  std::vector<std::string> out;
  CollectPaths(root_, &out);
  return out;
}

void ScoreFunction::CollectPaths(const Node& node, std::vector<std::string>* out) {
  if (node.kind == Kind::kPath) out->push_back(node.path);
  for (const Node& argument : node.arguments) CollectPaths(argument, out);
}

double ScoreFunction::Score(double relevance, const NumberAt& number_at) const {
  const double score = Evaluate(root_, relevance, number_at);
  return score >= 0 ? score : 0;  // NaN fails the comparison too
}

double ScoreFunction::Evaluate(const Node& node, double relevance, const NumberAt& number_at) {
  switch (node.kind) {
    case Kind::kAdd: {
      double sum = 0;
      for (const Node& argument : node.arguments) sum += Evaluate(argument, relevance, number_at);
      return sum;
    }
    case Kind::kMultiply: {
      double product = 1;
      for (const Node& argument : node.arguments) {
        product *= Evaluate(argument, relevance, number_at);
      }
      return product;
    }
    case Kind::kConstant:
      return node.constant;
    case Kind::kGauss: {
      // The distance beyond `offset`, decayed so that `scale` beyond it scores `decay`.
      const double distance = std::max(
          0.0, std::abs(Evaluate(node.arguments.front(), relevance, number_at) - node.origin) -
                   node.offset);
      return std::exp(distance * distance / (node.scale * node.scale / std::log(node.decay)));
    }
    case Kind::kLog:
      return std::log10(Evaluate(node.arguments.front(), relevance, number_at));
    case Kind::kLog1p:
      return std::log10(1 + Evaluate(node.arguments.front(), relevance, number_at));
    case Kind::kPath:
      return number_at(node.path, node.constant);
    case Kind::kRelevance:
      return relevance;
  }
  return 0;
}

}  // namespace quarry::text
