// Parsing of filter documents into the match tree, with mongod's error texts.
#include <string>

#include "query/match/matcher_internal.h"
#include "text/search.h"

namespace quarry::query {
namespace {

// mongod's internalPipelineLengthLimit-like guard on nesting ($and inside $or inside ...).
constexpr int kMaxTreeDepth = 100;

Status BadValue(std::string reason) { return Status(ErrorCode::kBadValue, std::move(reason)); }

bool StartsWithDollar(std::string_view key) { return !key.empty() && key[0] == '$'; }

// A document of operators ({$gt: 1}) as opposed to a literal document to compare with. A DBRef
// ({$ref, $id, $db}) is a literal.
bool IsOperatorDocument(bson::ValueView value) {
  if (value.type() != bson::Type::kDocument) return false;
  bson::DocumentView doc = value.Document();
  if (doc.empty()) return false;
  std::string_view first = doc.FirstKey();
  return StartsWithDollar(first) && first != "$ref" && first != "$id" && first != "$db";
}

MatchNodePtr MakeAnd(std::vector<MatchNodePtr> clauses) {
  if (clauses.empty()) return std::make_unique<ConstantNode>(true);
  if (clauses.size() == 1) return std::move(clauses.front());
  return std::make_unique<AndNode>(std::move(clauses));
}

MatchNodePtr MakePath(const FieldPath& path, PredicatePtr predicate) {
  return std::make_unique<PathNode>(path, std::move(predicate));
}

bool IsGeoOperator(std::string_view name) {
  return name == "$near" || name == "$nearSphere" || name == "$geoWithin" ||
         name == "$geoIntersects" || name == "$within" || name == "$box" || name == "$center" ||
         name == "$centerSphere" || name == "$polygon" || name == "$geometry" ||
         name == "$maxDistance" || name == "$minDistance";
}

enum class TextPlace { kWholeDocument, kOr, kNor, kElemMatch };

class Parser {
 public:
  Parser(const ParseContext* expression_context, const bson::StringComparator* collator)
      : expression_context_(expression_context), collator_(collator) {}

  StatusWith<MatchNodePtr> ParseDocument(bson::DocumentView filter, int depth);
  // The filter's $text, once parsed.
  std::shared_ptr<const text::TextSearch> text;
  // The conditions of one filter field (`path: value`), appended to `out`.
  Status ParseField(const FieldPath& path, bson::ValueView value, int depth,
                    std::vector<MatchNodePtr>* out);
  // The operators of {$gt: 1, $lt: 5} at `path`, appended to `out`.
  Status ParseOperators(const FieldPath& path, bson::DocumentView ops, int depth,
                        std::vector<MatchNodePtr>* out);

 private:
  StatusWith<MatchNodePtr> ParseTopLevel(std::string_view name, bson::ValueView arg, int depth);
  StatusWith<MatchNodePtr> ParseOperator(const FieldPath& path, std::string_view name,
                                         bson::ValueView arg, int depth);
  StatusWith<MatchNodePtr> ParseRegexOperator(const FieldPath& path, bson::DocumentView ops);
  StatusWith<MatchNodePtr> ParseIn(const FieldPath& path, std::string_view name,
                                   bson::ValueView arg);
  StatusWith<MatchNodePtr> ParseAll(const FieldPath& path, bson::ValueView arg, int depth);
  StatusWith<MatchNodePtr> ParseElemMatch(const FieldPath& path, bson::ValueView arg, int depth);
  StatusWith<MatchNodePtr> ParseNot(const FieldPath& path, bson::ValueView arg, int depth);

  StatusWith<MatchNodePtr> ParseText(bson::ValueView arg);

  const ParseContext* expression_context_;
  const bson::StringComparator* collator_;  // regexes ignore it, as in mongod
  // Where a $text would be: only one that constrains the whole document (at the top or under
  // $and) is answered.
  TextPlace text_place_ = TextPlace::kWholeDocument;
};

// Runs `parse` with `*place` set to `inner` (unless an outer place already refuses $text).
template <typename Parse>
auto ParseInPlace(TextPlace* place, TextPlace inner, Parse parse) {
  const TextPlace saved = *place;
  if (saved == TextPlace::kWholeDocument) *place = inner;
  auto result = parse();
  *place = saved;
  return result;
}

StatusWith<MatchNodePtr> Parser::ParseDocument(bson::DocumentView filter, int depth) {
  if (depth > kMaxTreeDepth) {
    return BadValue("exceeded maximum query tree depth of " + std::to_string(kMaxTreeDepth));
  }
  std::vector<MatchNodePtr> clauses;
  for (const bson::Element& element : filter) {
    if (StartsWithDollar(element.key)) {
      QUARRY_ASSIGN_OR_RETURN(MatchNodePtr node, ParseTopLevel(element.key, element.value, depth));
      if (node != nullptr) clauses.push_back(std::move(node));
      continue;
    }
    QUARRY_RETURN_IF_ERROR(
        ParseField(FieldPath::FromDotted(element.key), element.value, depth, &clauses));
  }
  return MakeAnd(std::move(clauses));
}

StatusWith<MatchNodePtr> Parser::ParseTopLevel(std::string_view name, bson::ValueView arg,
                                               int depth) {
  if (name == "$and" || name == "$or" || name == "$nor") {
    if (arg.type() != bson::Type::kArray || arg.Document().empty()) {
      return BadValue("$and/$or/$nor must be a nonempty array");
    }
    std::vector<MatchNodePtr> children;
    for (const bson::Element& element : arg.Document()) {
      if (element.value.type() != bson::Type::kDocument) {
        return BadValue("$or/$and/$nor entries need to be full objects");
      }
      auto parse_child = [&] { return ParseDocument(element.value.Document(), depth + 1); };
      QUARRY_ASSIGN_OR_RETURN(
          MatchNodePtr child,
          name == "$and"
              ? parse_child()
              : ParseInPlace(&text_place_, name == "$or" ? TextPlace::kOr : TextPlace::kNor,
                             parse_child));
      children.push_back(std::move(child));
    }
    if (name == "$and") return MakeAnd(std::move(children));
    MatchNodePtr any = std::make_unique<OrNode>(std::move(children));
    if (name == "$or") return any;
    return MatchNodePtr(std::make_unique<NotNode>(std::move(any)));
  }
  if (name == "$comment") return MatchNodePtr();
  if (name == "$expr") return ParseExprNode(arg, expression_context_);
  if (name == "$alwaysTrue" || name == "$alwaysFalse") {
    if (!arg.IsNumber() || arg.AsDouble() != 1) {
      return BadValue(std::string(name) + " must be an integer value of 1");
    }
    return MatchNodePtr(std::make_unique<ConstantNode>(name == "$alwaysTrue"));
  }
  if (name == "$where") return BadValue("$where is not supported");
  if (name == "$text") return ParseText(arg);
  if (name == "$jsonSchema") return ParseJsonSchemaNode(arg);
  return BadValue("unknown top level operator: " + std::string(name));
}

Status Parser::ParseField(const FieldPath& path, bson::ValueView value, int depth,
                          std::vector<MatchNodePtr>* out) {
  if (value.type() == bson::Type::kRegex) {
    QUARRY_ASSIGN_OR_RETURN(Regex regex,
                            Regex::Compile(value.Regex().pattern, value.Regex().options));
    out->push_back(MakePath(path, std::make_unique<RegexPredicate>(std::move(regex))));
    return Status::OK();
  }
  if (IsOperatorDocument(value)) return ParseOperators(path, value.Document(), depth, out);
  if (value.type() == bson::Type::kUndefined) return BadValue("cannot compare to undefined");
  out->push_back(
      MakePath(path, std::make_unique<ComparisonPredicate>(CompareOp::kEq, value, collator_)));
  return Status::OK();
}

Status Parser::ParseOperators(const FieldPath& path, bson::DocumentView ops, int depth,
                              std::vector<MatchNodePtr>* out) {
  if (depth > kMaxTreeDepth) {
    return BadValue("exceeded maximum query tree depth of " + std::to_string(kMaxTreeDepth));
  }
  bool regex_done = false;
  for (const bson::Element& element : ops) {
    const std::string_view name = element.key;
    if (name == "$regex" || name == "$options") {
      if (regex_done) continue;
      regex_done = true;
      QUARRY_ASSIGN_OR_RETURN(MatchNodePtr node, ParseRegexOperator(path, ops));
      out->push_back(std::move(node));
      continue;
    }
    QUARRY_ASSIGN_OR_RETURN(MatchNodePtr node, ParseOperator(path, name, element.value, depth));
    if (node != nullptr) out->push_back(std::move(node));
  }
  return Status::OK();
}

StatusWith<MatchNodePtr> Parser::ParseOperator(const FieldPath& path, std::string_view name,
                                               bson::ValueView arg, int depth) {
  const std::string field = path.dotted();
  if (name == "$eq" || name == "$lt" || name == "$lte" || name == "$gt" || name == "$gte") {
    if (arg.type() == bson::Type::kUndefined) return BadValue("cannot compare to undefined");
    CompareOp op = CompareOp::kEq;
    if (name == "$lt") op = CompareOp::kLt;
    if (name == "$lte") op = CompareOp::kLte;
    if (name == "$gt") op = CompareOp::kGt;
    if (name == "$gte") op = CompareOp::kGte;
    if (op != CompareOp::kEq && arg.type() == bson::Type::kRegex) {
      return BadValue("Can't have RegEx as arg to predicate over field '" + field + "'.");
    }
    return MakePath(path, std::make_unique<ComparisonPredicate>(op, arg, collator_));
  }
  if (name == "$ne") {
    if (arg.type() == bson::Type::kUndefined) return BadValue("cannot compare to undefined");
    if (arg.type() == bson::Type::kRegex) return BadValue("Can't have regex as arg to $ne.");
    return MatchNodePtr(std::make_unique<NotNode>(
        MakePath(path, std::make_unique<ComparisonPredicate>(CompareOp::kEq, arg, collator_))));
  }
  if (name == "$in" || name == "$nin") {
    QUARRY_ASSIGN_OR_RETURN(MatchNodePtr in, ParseIn(path, name, arg));
    if (name == "$in") return in;
    return MatchNodePtr(std::make_unique<NotNode>(std::move(in)));
  }
  if (name == "$exists") {
    MatchNodePtr exists = MakePath(path, std::make_unique<ExistsPredicate>());
    if (arg.Truthy()) return exists;
    return MatchNodePtr(std::make_unique<NotNode>(std::move(exists)));
  }
  if (name == "$type") {
    std::vector<bson::Type> types;
    bool any_number = false;
    if (arg.type() == bson::Type::kArray) {
      for (const bson::Element& element : arg.Document()) {
        QUARRY_RETURN_IF_ERROR(AddTypeSpec(element.value, &types, &any_number));
      }
      if (types.empty() && !any_number) return BadValue("$type must match at least one type");
    } else {
      QUARRY_RETURN_IF_ERROR(AddTypeSpec(arg, &types, &any_number));
    }
    return MakePath(path, std::make_unique<TypePredicate>(std::move(types), any_number));
  }
  if (name == "$size") {
    if (!arg.IsNumber()) return BadValue("$size needs a number");
    if (!arg.IsIntegral()) return BadValue("$size must be a whole number");
    if (arg.AsInt64() < 0) return BadValue("$size may not be negative");
    return MakePath(path, std::make_unique<SizePredicate>(arg.AsInt64()));
  }
  if (name == "$mod") {
    if (arg.type() != bson::Type::kArray) return BadValue("malformed mod, needs to be an array");
    bson::DocumentView elements = arg.Document();
    const std::size_t count = elements.CountElements();
    if (count < 2) return BadValue("malformed mod, not enough elements");
    if (count > 2) return BadValue("malformed mod, too many elements");
    auto it = elements.begin();
    bson::ValueView divisor_value = it->value;
    ++it;
    bson::ValueView remainder_value = it->value;
    QUARRY_ASSIGN_OR_RETURN(std::int64_t divisor, ParseModArgument(divisor_value, "divisor"));
    QUARRY_ASSIGN_OR_RETURN(std::int64_t remainder, ParseModArgument(remainder_value, "remainder"));
    if (divisor == 0) return BadValue("divisor cannot be 0");
    return MakePath(path, std::make_unique<ModPredicate>(divisor, remainder));
  }
  if (name == "$all") return ParseAll(path, arg, depth);
  if (name == "$elemMatch") return ParseElemMatch(path, arg, depth);
  if (name == "$not") return ParseNot(path, arg, depth);
  if (name == "$bitsAllSet" || name == "$bitsAnySet" || name == "$bitsAllClear" ||
      name == "$bitsAnyClear") {
    QUARRY_ASSIGN_OR_RETURN(std::vector<std::uint32_t> positions, ParseBitPositions(name, arg));
    BitsOp op = BitsOp::kAllSet;
    if (name == "$bitsAnySet") op = BitsOp::kAnySet;
    if (name == "$bitsAllClear") op = BitsOp::kAllClear;
    if (name == "$bitsAnyClear") op = BitsOp::kAnyClear;
    return MakePath(path, std::make_unique<BitsPredicate>(op, std::move(positions)));
  }
  if (IsGeoOperator(name)) {
    return BadValue(std::string(name) + " is not supported: Quarry has no geospatial queries");
  }
  return BadValue("unknown operator: " + std::string(name));
}

StatusWith<MatchNodePtr> Parser::ParseRegexOperator(const FieldPath& path, bson::DocumentView ops) {
  bson::ValueView regex_arg = ops.Get("$regex");
  bson::ValueView options_arg = ops.Get("$options");
  if (!regex_arg.exists()) return BadValue("$options needs a $regex");
  std::string_view options;
  if (options_arg.exists()) {
    if (options_arg.type() != bson::Type::kString) return BadValue("$options has to be a string");
    options = options_arg.String();
  }
  std::string_view pattern;
  if (regex_arg.type() == bson::Type::kString) {
    pattern = regex_arg.String();
  } else if (regex_arg.type() == bson::Type::kRegex) {
    pattern = regex_arg.Regex().pattern;
    if (!regex_arg.Regex().options.empty()) {
      if (!options.empty()) return BadValue("options set in both $regex and $options");
      options = regex_arg.Regex().options;
    }
  } else {
    return BadValue("$regex has to be a string");
  }
  QUARRY_ASSIGN_OR_RETURN(Regex regex, Regex::Compile(pattern, options));
  return MakePath(path, std::make_unique<RegexPredicate>(std::move(regex)));
}

StatusWith<MatchNodePtr> Parser::ParseIn(const FieldPath& path, std::string_view name,
                                         bson::ValueView arg) {
  if (arg.type() != bson::Type::kArray) return BadValue(std::string(name) + " needs an array");
  std::vector<bson::ValueView> equalities;
  std::vector<Regex> regexes;
  for (const bson::Element& element : arg.Document()) {
    const bson::ValueView value = element.value;
    if (value.type() == bson::Type::kRegex) {
      QUARRY_ASSIGN_OR_RETURN(Regex regex,
                              Regex::Compile(value.Regex().pattern, value.Regex().options));
      regexes.push_back(std::move(regex));
      continue;
    }
    if (IsOperatorDocument(value)) return BadValue("cannot nest $ under " + std::string(name));
    if (value.type() == bson::Type::kUndefined) {
      return BadValue("InMatchExpression equality cannot be undefined");
    }
    equalities.push_back(value);
  }
  return MakePath(path, std::make_unique<InPredicate>(arg, std::move(equalities),
                                                      std::move(regexes), collator_));
}

StatusWith<MatchNodePtr> Parser::ParseAll(const FieldPath& path, bson::ValueView arg, int depth) {
  if (arg.type() != bson::Type::kArray) return BadValue("$all needs an array");
  bson::DocumentView elements = arg.Document();
  if (elements.empty()) return MatchNodePtr(std::make_unique<ConstantNode>(false));
  std::vector<MatchNodePtr> clauses;
  const bson::ValueView first = elements.begin()->value;
  const bool elem_match_form = first.type() == bson::Type::kDocument && !first.Document().empty() &&
                               first.Document().FirstKey() == "$elemMatch";
  for (const bson::Element& element : elements) {
    const bson::ValueView value = element.value;
    if (elem_match_form) {
      if (value.type() != bson::Type::kDocument || value.Document().empty() ||
          value.Document().FirstKey() != "$elemMatch") {
        return BadValue("$all/$elemMatch has to be consistent");
      }
      QUARRY_ASSIGN_OR_RETURN(MatchNodePtr node,
                              ParseElemMatch(path, value.Document().begin()->value, depth));
      clauses.push_back(std::move(node));
      continue;
    }
    if (value.type() == bson::Type::kRegex) {
      QUARRY_ASSIGN_OR_RETURN(Regex regex,
                              Regex::Compile(value.Regex().pattern, value.Regex().options));
      clauses.push_back(MakePath(path, std::make_unique<RegexPredicate>(std::move(regex))));
      continue;
    }
    if (IsOperatorDocument(value)) return BadValue("no $ expressions in $all");
    if (value.type() == bson::Type::kUndefined) return BadValue("cannot compare to undefined");
    clauses.push_back(
        MakePath(path, std::make_unique<ComparisonPredicate>(CompareOp::kEq, value, collator_)));
  }
  return MakeAnd(std::move(clauses));
}

StatusWith<MatchNodePtr> Parser::ParseElemMatch(const FieldPath& path, bson::ValueView arg,
                                                int depth) {
  if (arg.type() != bson::Type::kDocument) return BadValue("$elemMatch needs an Object");
  bson::DocumentView spec = arg.Document();
  std::string_view first = spec.empty() ? std::string_view() : spec.FirstKey();
  // The value form applies operators to the elements themselves; logical operators and
  // $expr/$where name fields of document elements, so they mean the object form.
  const bool value_form = IsOperatorDocument(arg) && first != "$and" && first != "$or" &&
                          first != "$nor" && first != "$where" && first != "$expr" &&
                          first != "$text" && first != "$comment" && first != "$jsonSchema" &&
                          first != "$alwaysTrue" && first != "$alwaysFalse";
  if (value_form) {
    std::vector<MatchNodePtr> conditions;
    QUARRY_RETURN_IF_ERROR(ParseOperators(FieldPath(), spec, depth + 1, &conditions));
    return MakePath(path, std::make_unique<ElemMatchValuePredicate>(std::move(conditions)));
  }
  if (spec.Has("$where")) return BadValue("$elemMatch cannot contain $where expression");
  QUARRY_ASSIGN_OR_RETURN(MatchNodePtr sub, ParseInPlace(&text_place_, TextPlace::kElemMatch, [&] {
                            return ParseDocument(spec, depth + 1);
                          }));
  return MakePath(path, std::make_unique<ElemMatchObjectPredicate>(path, std::move(sub)));
}

StatusWith<MatchNodePtr> Parser::ParseNot(const FieldPath& path, bson::ValueView arg, int depth) {
  if (arg.type() == bson::Type::kRegex) {
    QUARRY_ASSIGN_OR_RETURN(Regex regex, Regex::Compile(arg.Regex().pattern, arg.Regex().options));
    return MatchNodePtr(std::make_unique<NotNode>(
        MakePath(path, std::make_unique<RegexPredicate>(std::move(regex)))));
  }
  if (arg.type() != bson::Type::kDocument) return BadValue("$not needs a regex or a document");
  if (arg.Document().empty()) return BadValue("$not cannot be empty");
  std::vector<MatchNodePtr> children;
  QUARRY_RETURN_IF_ERROR(ParseOperators(path, arg.Document(), depth + 1, &children));
  return MatchNodePtr(std::make_unique<NotNode>(MakeAnd(std::move(children))));
}

StatusWith<MatchNodePtr> Parser::ParseText(bson::ValueView arg) {
  switch (text_place_) {
    case TextPlace::kWholeDocument:
      break;
    case TextPlace::kNor:
      return BadValue("text expression not allowed in nor");
    case TextPlace::kElemMatch:
      return BadValue("$text can only be applied to the top-level document");
    case TextPlace::kOr:
      return Status(ErrorCode::kNoQueryExecutionPlans,
                    "$text under $or is not supported by Quarry yet: put it at the top of the "
                    "filter or under $and");
  }
  if (text != nullptr) return BadValue("Too many text expressions");
  QUARRY_ASSIGN_OR_RETURN(text::TextSearch search, text::TextSearch::Parse(arg));
  text = std::make_shared<const text::TextSearch>(std::move(search));
  return MatchNodePtr(std::make_unique<TextNode>());
}

}  // namespace

StatusWith<MatchNodePtr> ParseFilterNode(bson::DocumentView filter,
                                         const ParseContext* expression_context,
                                         const bson::StringComparator* collator,
                                         std::shared_ptr<const text::TextSearch>* text) {
  Parser parser(expression_context, collator);
  QUARRY_ASSIGN_OR_RETURN(MatchNodePtr root, parser.ParseDocument(filter, 0));
  if (text != nullptr) *text = std::move(parser.text);
  return root;
}

StatusWith<MatchNodePtr> ParseValueConditionNode(bson::ValueView condition,
                                                 const bson::StringComparator* collator) {
  Parser parser(nullptr, collator);
  std::vector<MatchNodePtr> clauses;
  QUARRY_RETURN_IF_ERROR(parser.ParseField(FieldPath(), condition, 0, &clauses));
  return MakeAnd(std::move(clauses));
}

}  // namespace quarry::query
