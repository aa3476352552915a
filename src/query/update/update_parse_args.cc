// Parsing each update operator's argument into its LeafOp: numbers for $inc/$mul, $push's
// modifiers, $pull's condition, $currentDate's type...
#include "query/update/update_internal.h"
#include "query/value/location_error.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::update_internal {
namespace {

using bson::Type;

Status BadValue(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }
Status FailedToParse(std::string message) {
  return Status(ErrorCode::kFailedToParse, std::move(message));
}

std::string ElementJson(std::string_view key, bson::ValueView value) {
  return "{" + std::string(key) + ": " + value.ToJson() + "}";
}

// ---- operator arguments ----

Status ParseNumberArg(LeafOp* op, bson::ValueView value) {
  if (!value.IsNumber()) {
    const char* verb = op->kind == OpKind::kInc ? "increment" : "multiply";
    return Status(ErrorCode::kTypeMismatch,
                  "Cannot " + std::string(verb) +
                      " with non-numeric argument: " + ElementJson(op->path, value));
  }
  op->arg = Value::Copy(value);
  return Status::OK();
}

Status ParseCurrentDate(LeafOp* op, bson::ValueView value) {
  if (value.type() == Type::kBool) return Status::OK();
  if (value.type() == Type::kDocument) {
    bool found = false;
    for (const bson::Element& e : value.Document()) {
      if (e.key != "$type")
        return BadValue("Unrecognized $currentDate option: " + std::string(e.key));
      found = true;
      if (e.value.type() == Type::kString && e.value.String() == "timestamp") {
        op->timestamp = true;
      } else if (!(e.value.type() == Type::kString && e.value.String() == "date")) {
        return BadValue(
            "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: "
            "{field : {$type: 'date'}}}");
      }
    }
    if (found) return Status::OK();
  }
  return BadValue(op->path +
                  " is not valid type for $currentDate. Please use a boolean ('true') or a $type "
                  "expression ({$type: 'timestamp/date'}).");
}

Status ParsePushSort(LeafOp* op, bson::ValueView sort) {
  op->has_sort = true;
  if (sort.IsNumber()) {
    double d = sort.AsDouble();
    if (d != 1 && d != -1) return BadValue("The $sort element value must be either 1 or -1");
    op->sort_whole_direction = d > 0 ? 1 : -1;
    return Status::OK();
  }
  if (sort.type() != Type::kDocument) {
    return BadValue(
        "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort "
        "embedded fields");
  }
  if (sort.Document().empty()) {
    return BadValue("The $sort pattern is empty when it should be a set of fields.");
  }
  for (const bson::Element& e : sort.Document()) {
    if (e.key.empty() || e.key.front() == '.' || e.key.back() == '.' ||
        e.key.find("..") != std::string_view::npos) {
      return BadValue("The $sort field is a dotted field but has an empty part: " +
                      std::string(e.key));
    }
    if (!e.value.IsNumber() || (e.value.AsDouble() != 1 && e.value.AsDouble() != -1)) {
      return BadValue("The $sort element value must be either 1 or -1");
    }
  }
  QUARRY_ASSIGN_OR_RETURN(op->sort_spec, SortSpec::Parse(sort.Document(), op->collator));
  return Status::OK();
}

Status ParseIntegralClause(std::string_view clause, bson::ValueView v, std::int64_t* out) {
  if (!v.IsNumber() || !ToInt64Exact(v, out)) {
    return BadValue("The value for " + std::string(clause) +
                    " must be an integer value but was given type: " + std::string(TypeName(v)));
  }
  return Status::OK();
}

Status ParsePush(LeafOp* op, bson::ValueView value) {
  if (value.type() == Type::kDocument && value.Document().Has("$each")) {
    for (const bson::Element& e : value.Document()) {
      if (e.key == "$each") {
        if (e.value.type() != Type::kArray) {
          return BadValue("The argument to $each in $push must be an array but it was of type: " +
                          std::string(TypeName(e.value)));
        }
        for (const bson::Element& item : e.value.Document()) {
          op->each.push_back(Value::Copy(item.value));
        }
      } else if (e.key == "$slice") {
        std::int64_t n = 0;
        QUARRY_RETURN_IF_ERROR(ParseIntegralClause("$slice", e.value, &n));
        op->slice = n;
      } else if (e.key == "$position") {
        std::int64_t n = 0;
        if (!e.value.IsNumber() || !ToInt64Exact(e.value, &n)) {
          return BadValue("The value for $position must be an integer value, not of type: " +
                          std::string(TypeName(e.value)));
        }
        op->position = n;
      } else if (e.key == "$sort") {
        QUARRY_RETURN_IF_ERROR(ParsePushSort(op, e.value));
      } else {
        return BadValue("Unrecognized clause in $push: " + std::string(e.key));
      }
    }
    return Status::OK();
  }
  op->each.push_back(Value::Copy(value));
  return Status::OK();
}

Status ParseAddToSet(LeafOp* op, bson::ValueView value) {
  if (value.type() == Type::kDocument && value.Document().FirstKey() == "$each") {
    bool first = true;
    for (const bson::Element& e : value.Document()) {
      if (!first) {
        return BadValue("Found unexpected fields after $each in $addToSet: " +
                        value.Document().ToJson());
      }
      first = false;
      if (e.value.type() != Type::kArray) {
        return BadValue("The argument to $each in $addToSet must be an array but it was of type " +
                        std::string(TypeName(e.value)));
      }
      for (const bson::Element& item : e.value.Document()) {
        op->each.push_back(Value::Copy(item.value));
      }
    }
    return Status::OK();
  }
  op->each.push_back(Value::Copy(value));
  return Status::OK();
}

bool IsTopLevelOnlyOperator(std::string_view name) {
  return name == "$and" || name == "$or" || name == "$nor" || name == "$expr" || name == "$where" ||
         name == "$text" || name == "$comment";
}

Status ParsePull(LeafOp* op, bson::ValueView value) {
  op->arg = Value::Copy(value);
  if (value.type() == Type::kDocument) {
    bson::DocumentView doc = value.Document();
    if (!doc.empty() && doc.FirstKey()[0] == '$' && !IsTopLevelOnlyOperator(doc.FirstKey())) {
      op->pull_mode = LeafOp::PullMode::kValueCondition;
      QUARRY_ASSIGN_OR_RETURN(Matcher m, Matcher::ParseValueCondition(value, op->collator));
      op->pull_matcher = std::move(m);
    } else {
      op->pull_mode = LeafOp::PullMode::kDocumentFilter;
      QUARRY_ASSIGN_OR_RETURN(Matcher m, Matcher::Parse(doc, bson::DocumentView(), op->collator));
      op->pull_matcher = std::move(m);
    }
  } else if (value.type() == Type::kRegex) {
    op->pull_mode = LeafOp::PullMode::kValueCondition;
    QUARRY_ASSIGN_OR_RETURN(Matcher m, Matcher::ParseValueCondition(value, op->collator));
    op->pull_matcher = std::move(m);
  } else {
    op->pull_mode = LeafOp::PullMode::kEquality;
  }
  return Status::OK();
}

}  // namespace

Status ParseArg(LeafOp* op, bson::ValueView value) {
  switch (op->kind) {
    case OpKind::kSet:
    case OpKind::kSetOnInsert:
    case OpKind::kMin:
    case OpKind::kMax:
      op->arg = Value::Copy(value);
      return Status::OK();
    case OpKind::kUnset:
    case OpKind::kRenameSource:
      return Status::OK();
    case OpKind::kInc:
    case OpKind::kMul:
      return ParseNumberArg(op, value);
    case OpKind::kCurrentDate:
      return ParseCurrentDate(op, value);
    case OpKind::kPush:
      return ParsePush(op, value);
    case OpKind::kAddToSet:
      return ParseAddToSet(op, value);
    case OpKind::kPop: {
      if (!value.IsNumber())
        return FailedToParse("Expected a number in: " + ElementJson(op->path, value));
      double d = value.AsDouble();
      if (d != 1 && d != -1) return FailedToParse("$pop expects 1 or -1, found: " + value.ToJson());
      op->arg = Value::Int32(d > 0 ? 1 : -1);
      return Status::OK();
    }
    case OpKind::kPull:
      return ParsePull(op, value);
    case OpKind::kPullAll:
      if (value.type() != Type::kArray) {
        return BadValue("$pullAll requires an array argument but was given a " +
                        std::string(TypeName(value)));
      }
      op->arg = Value::Copy(value);
      return Status::OK();
    case OpKind::kRename:
      return Status::OK();
  }
  return Status::OK();
}

}  // namespace quarry::query::update_internal
