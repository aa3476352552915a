// Pattern expressions: $regexMatch (PCRE2 through query/value/regex.h), $replaceOne, $replaceAll.
#include <optional>

#include "query/expression/expression_internal.h"
#include "query/value/regex.h"

namespace quarry::query::expr_internal {
namespace {

using bson::Type;

// ---- $regexMatch ----

class RegexMatchExpression final : public Expression {
 public:
  RegexMatchExpression(ExpressionPtr input, ExpressionPtr regex, ExpressionPtr options)
      : input_(std::move(input)), regex_(std::move(regex)), options_(std::move(options)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    QUARRY_ASSIGN_OR_RETURN(Value regex, regex_->Evaluate(ctx));
    QUARRY_ASSIGN_OR_RETURN(Value options, EvaluateOptional(options_, ctx));
    std::string pattern;
    std::string flags;
    if (regex.type() == Type::kRegex) {
      pattern = std::string(regex.view().Regex().pattern);
      flags = std::string(regex.view().Regex().options);
    } else if (regex.type() == Type::kString) {
      pattern = std::string(regex.view().String());
    } else if (!regex.nullish()) {
      return LocationError(51105, "$regexMatch needs 'regex' to be of type string or regex");
    }
    if (!options.nullish()) {
      if (options.type() != Type::kString) {
        return LocationError(51106, "$regexMatch needs 'options' to be of type string");
      }
      if (!flags.empty()) {
        return LocationError(51107,
                             "$regexMatch found regex option(s) specified in both 'regex' and "
                             "'option' fields");
      }
      flags = std::string(options.view().String());
    }
    if (input.nullish() || regex.nullish()) return Value::Bool(false);
    if (input.type() != Type::kString) {
      return LocationError(51104, "$regexMatch needs 'input' to be of type string");
    }
    std::optional<Regex> compiled = precompiled_;
    if (!compiled.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(compiled, Regex::Compile(pattern, flags));
    }
    QUARRY_ASSIGN_OR_RETURN(bool found, compiled->Search(input.view().String()));
    return Value::Bool(found);
  }

  // A constant pattern is compiled once, here, rather than per document.
  Status Precompile() {
    if (!regex_->IsConstant() || (options_ != nullptr && !options_->IsConstant())) {
      return Status::OK();
    }
    EvalContext ctx;
    QUARRY_ASSIGN_OR_RETURN(Value regex, regex_->Evaluate(ctx));
    QUARRY_ASSIGN_OR_RETURN(Value options, EvaluateOptional(options_, ctx));
    std::string pattern;
    std::string flags;
    if (regex.type() == Type::kRegex) {
      pattern = std::string(regex.view().Regex().pattern);
      flags = std::string(regex.view().Regex().options);
    } else if (regex.type() == Type::kString) {
      pattern = std::string(regex.view().String());
    } else {
      return Status::OK();  // errors surface at evaluation, as before
    }
    if (!options.nullish()) {
      if (options.type() != Type::kString || !flags.empty()) return Status::OK();
      flags = std::string(options.view().String());
    }
    QUARRY_ASSIGN_OR_RETURN(Regex compiled, Regex::Compile(pattern, flags));
    precompiled_ = std::move(compiled);
    return Status::OK();
  }

 private:
  std::optional<Regex> precompiled_;
  ExpressionPtr input_;
  ExpressionPtr regex_;
  ExpressionPtr options_;
};

StatusWith<ExpressionPtr> ParseRegexMatch(std::string_view name, bson::ValueView args,
                                          ParseContext& ctx) {
  if (args.type() != Type::kDocument) {
    return LocationError(51103, std::string(name) +
                                    " expects an object of named arguments but found: " +
                                    std::string(TypeName(args)));
  }
  bson::ValueView input;
  bson::ValueView regex;
  bson::ValueView options;
  for (const bson::Element& e : args.Document()) {
    if (e.key == "input") {
      input = e.value;
    } else if (e.key == "regex") {
      regex = e.value;
    } else if (e.key == "options") {
      options = e.value;
    } else {
      return LocationError(31024,
                           std::string(name) + " found an unknown argument: " + std::string(e.key));
    }
  }
  if (!input.exists())
    return LocationError(31022, std::string(name) + " requires 'input' parameter");
  if (!regex.exists())
    return LocationError(31023, std::string(name) + " requires 'regex' parameter");
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input_expr, Expression::Parse(input, ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr regex_expr, Expression::Parse(regex, ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr options_expr, ParseOptional(options, ctx));
  auto expr = std::make_shared<RegexMatchExpression>(std::move(input_expr), std::move(regex_expr),
                                                     std::move(options_expr));
  QUARRY_RETURN_IF_ERROR(expr->Precompile());
  return ExpressionPtr(std::move(expr));
}

// ---- $replaceOne / $replaceAll ----

class ReplaceExpression final : public Expression {
 public:
  ReplaceExpression(std::string name, bool all, ExpressionPtr input, ExpressionPtr find,
                    ExpressionPtr replacement)
      : name_(std::move(name)),
        all_(all),
        input_(std::move(input)),
        find_(std::move(find)),
        replacement_(std::move(replacement)) {}

  StatusWith<Value> Evaluate(EvalContext& ctx) const override {
    QUARRY_ASSIGN_OR_RETURN(Value input, input_->Evaluate(ctx));
    QUARRY_ASSIGN_OR_RETURN(Value find, find_->Evaluate(ctx));
    QUARRY_ASSIGN_OR_RETURN(Value replacement, replacement_->Evaluate(ctx));
    const Value* parts[3] = {&input, &find, &replacement};
    const char* names[3] = {"input", "find", "replacement"};
    for (int part_idx = 0; part_idx < 3; ++part_idx) {
      const Value& v = *parts[part_idx];
      if (!v.nullish() && v.type() != Type::kString) {
        return LocationError(51746, name_ + " requires that '" + names[part_idx] +
                                        "' be a string, found: " + v.ToJson());
      }
    }
    if (input.nullish() || find.nullish() || replacement.nullish()) return Value::Null();
    std::string_view s = input.view().String();
    std::string_view f = find.view().String();
    std::string_view r = replacement.view().String();
    std::string out;
    std::size_t start = 0;
    while (true) {
      std::size_t found = s.find(f, start);
      if (found == std::string_view::npos) break;
      out.append(s.substr(start, found - start));
      out.append(r);
      start = found + f.size();
      if (!all_) break;
      if (f.empty()) {
        if (start >= s.size()) break;
        out.push_back(s[start]);
        ++start;
      }
    }
    out.append(s.substr(std::min(start, s.size())));
    return Value::String(out);
  }

 private:
  std::string name_;
  bool all_;
  ExpressionPtr input_;
  ExpressionPtr find_;
  ExpressionPtr replacement_;
};

StatusWith<ExpressionPtr> ParseReplace(std::string_view name, bson::ValueView args,
                                       ParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(NamedArgs named,
                          ParseNamedArgs(name, args, {"input", "find", "replacement"},
                                         {"input", "find", "replacement"}, 51751, 51750, 51749));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr input, Expression::Parse(named.Get("input"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr find, Expression::Parse(named.Get("find"), ctx));
  QUARRY_ASSIGN_OR_RETURN(ExpressionPtr replacement,
                          Expression::Parse(named.Get("replacement"), ctx));
  return ExpressionPtr(std::make_shared<ReplaceExpression>(std::string(name), name == "$replaceAll",
                                                           std::move(input), std::move(find),
                                                           std::move(replacement)));
}

}  // namespace

void AddRegexOperators(OperatorTable* table) {
  table->Add("$regexMatch", ParseRegexMatch);
  table->Add("$replaceOne", ParseReplace);
  table->Add("$replaceAll", ParseReplace);
}

}  // namespace quarry::query::expr_internal
