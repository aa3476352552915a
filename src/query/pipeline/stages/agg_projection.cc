// Aggregation projection: parse the specification into a tree of paths, then apply it in two
// phases as mongod does (kept/removed fields in document order, then computed fields in
// specification order).
#include "query/pipeline/stages/agg_projection.h"

#include "bson/builder.h"
#include "bson/path.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

using Node = AggProjection::Node;
using Kind = Node::Kind;
using bson::Type;

std::string ProjectError(std::string_view stage, std::string_view message) {
  return "Invalid " + std::string(stage) + " :: caused by :: " + std::string(message);
}

Status ValidateFieldName(std::string_view stage, std::string_view name) {
  if (name.empty()) {
    return LocationError(40352,
                         ProjectError(stage, "FieldPath cannot be constructed with empty string"));
  }
  if (name[0] == '$') {
    return LocationError(16410, ProjectError(stage,
                                             "FieldPath field names may not start with '$'. "
                                             "Consider using $getField or $setField."));
  }
  return Status::OK();
}

// Finds or creates the node for the parent of the last component of `path`, checking for
// collisions with existing leaves.
StatusWith<Node*> NodeForPath(std::string_view stage, Node* root, std::string_view path,
                              std::string* last) {
  Node* node = root;
  for (const bson::PathComponent& part : bson::PathComponents(path)) {
    QUARRY_RETURN_IF_ERROR(ValidateFieldName(stage, part.name));
    auto it = node->children.find(part.name);
    if (part.is_last) {
      *last = std::string(part.name);
      if (it != node->children.end()) {
        return LocationError(31250, ProjectError(stage, "Path collision at " + std::string(path)));
      }
      break;
    }
    if (it == node->children.end()) {
      Node::Child child;
      child.kind = Kind::kNested;
      child.nested = std::make_shared<Node>();
      node->order.emplace_back(part.name);
      it = node->children.emplace(std::string(part.name), std::move(child)).first;
    } else if (it->second.kind != Kind::kNested) {
      return LocationError(31250, ProjectError(stage, "Path collision at " + std::string(path) +
                                                          " remaining portion " +
                                                          std::string(path.substr(part.offset))));
    }
    node = it->second.nested.get();
  }
  return node;
}

void MarkComputed(Node* node) {
  bool computed = false;
  for (auto& [name, child] : node->children) {
    if (child.kind == Kind::kExpression) computed = true;
    if (child.kind == Kind::kNested) {
      MarkComputed(child.nested.get());
      computed = computed || child.nested->has_computed;
    }
  }
  node->has_computed = computed;
}

struct ParseState {
  std::string_view stage;
  bool add_fields = false;
  bool saw_inclusion = false;  // includes or expressions, other than _id
  bool saw_exclusion = false;  // excludes other than _id
  // {$meta: ...} fields: computed fields that an exclusion projection may add too (a
  // projection of nothing else is an inclusion, as in mongod's aggregation).
  bool saw_meta = false;
  std::string first_inclusion;
  std::string first_exclusion;
};

bool IsOperatorObject(bson::ValueView v) {
  return v.type() == Type::kDocument && !v.Document().empty() && v.Document().FirstKey()[0] == '$';
}

Status ParseInto(ParseState* state, Node* root, bson::DocumentView spec, const std::string& prefix,
                 ParseContext& ctx) {
  for (const bson::Element& e : spec) {
    const std::string path =
        prefix.empty() ? std::string(e.key) : prefix + "." + std::string(e.key);
    // A nested specification ({a: {b: 1}}) continues the path.
    if (e.value.type() == Type::kDocument && !IsOperatorObject(e.value) &&
        !(state->add_fields && e.value.Document().empty())) {
      if (e.value.Document().empty()) {
        return LocationError(51270, ProjectError(state->stage,
                                                 "An empty sub-projection is not a valid value. "
                                                 "Found empty object at path"));
      }
      QUARRY_RETURN_IF_ERROR(ParseInto(state, root, e.value.Document(), path, ctx));
      continue;
    }
    std::string last;
    QUARRY_ASSIGN_OR_RETURN(Node * parent, NodeForPath(state->stage, root, path, &last));
    Node::Child child;
    const bool is_id = path == "_id";
    if (state->add_fields) {
      child.kind = Kind::kExpression;
      QUARRY_ASSIGN_OR_RETURN(child.expr, Expression::Parse(e.value, ctx));
    } else if (e.value.type() == Type::kBool || e.value.IsNumber()) {
      child.kind = e.value.Truthy() ? Kind::kInclude : Kind::kExclude;
    } else {
      child.kind = Kind::kExpression;
      QUARRY_ASSIGN_OR_RETURN(child.expr, Expression::Parse(e.value, ctx));
    }
    const bool meta =
        !state->add_fields && IsOperatorObject(e.value) && e.value.Document().FirstKey() == "$meta";
    if (meta) state->saw_meta = true;
    if (!meta && (!is_id || child.kind == Kind::kExpression)) {
      if (child.kind == Kind::kExclude) {
        if (!state->saw_exclusion) state->first_exclusion = path;
        state->saw_exclusion = true;
      } else if (!state->add_fields) {
        if (!state->saw_inclusion) state->first_inclusion = path;
        state->saw_inclusion = true;
        if (child.kind == Kind::kExpression && state->saw_exclusion) {
          return LocationError(31252, ProjectError(state->stage,
                                                   "Cannot use expression other than $meta in "
                                                   "exclusion projection"));
        }
      }
      if (state->saw_inclusion && state->saw_exclusion) {
        if (child.kind == Kind::kExclude) {
          return LocationError(31254,
                               ProjectError(state->stage, "Cannot do exclusion on field " + path +
                                                              " in inclusion projection"));
        }
        if (child.kind == Kind::kExpression) {
          return LocationError(31252, ProjectError(state->stage,
                                                   "Cannot use expression other than $meta in "
                                                   "exclusion projection"));
        }
        return LocationError(31253,
                             ProjectError(state->stage, "Cannot do inclusion on field " + path +
                                                            " in exclusion projection"));
      }
    }
    parent->order.push_back(last);
    parent->children.emplace(last, std::move(child));
  }
  return Status::OK();
}

// ---- application ----

// Phase 1 of an inclusion: the kept fields, in document order.
MutableValue IncludeDocument(const Node& node, const Value& doc, bool top_level);

MutableValue IncludeValue(const Node& node, const Value& v) {
  if (v.IsDocument()) return IncludeDocument(node, v, false);
  if (v.IsArray()) {
    MutableValue out = MutableValue::NewArray();
    for (const bson::Element& e : v.view().Document()) {
      Value element = v.Child(e.value);
      if (element.IsDocument() || element.IsArray()) {
        out.elements().push_back(IncludeValue(node, element));
      }
    }
    return out;
  }
  return MutableValue();  // scalars are dropped
}

MutableValue IncludeDocument(const Node& node, const Value& doc, bool top_level) {
  MutableValue out = MutableValue::NewDocument();
  for (const bson::Element& e : doc.view().Document()) {
    auto it = node.children.find(e.key);
    if (it == node.children.end()) {
      if (top_level && e.key == "_id") out.Append(e.key, MutableValue(doc.Child(e.value)));
      continue;
    }
    const Node::Child& child = it->second;
    switch (child.kind) {
      case Kind::kInclude:
        out.Append(e.key, MutableValue(doc.Child(e.value)));
        break;
      case Kind::kNested: {
        MutableValue nested = IncludeValue(*child.nested, doc.Child(e.value));
        if (!nested.missing()) out.Append(e.key, std::move(nested));
        break;
      }
      case Kind::kExclude:
      case Kind::kExpression:
        break;
    }
  }
  return out;
}

// Without computed fields, inclusion and exclusion work on the BSON itself, as the two
// functions above do on values: kept values are copied as they are, where a value tree would
// cost allocations per field and a second serialization.
void IncludeInto(const Node& node, bson::DocumentView doc, bool top_level,
                 bson::DocumentBuilder* out);

// An array under a nested inclusion keeps its documents and arrays, reshaped, and drops its
// scalars; the kept elements are numbered afresh.
void IncludeArrayInto(const Node& node, bson::DocumentView array, bson::DocumentBuilder* out) {
  std::size_t index = 0;
  for (const bson::Element& e : array) {
    if (e.value.type() == Type::kDocument) {
      out->OpenDocument(std::to_string(index++));
      IncludeInto(node, e.value.Document(), false, out);
      out->Close();
    } else if (e.value.type() == Type::kArray) {
      out->OpenArray(std::to_string(index++));
      IncludeArrayInto(node, e.value.Document(), out);
      out->Close();
    }
  }
}

void IncludeInto(const Node& node, bson::DocumentView doc, bool top_level,
                 bson::DocumentBuilder* out) {
  for (const bson::Element& e : doc) {
    auto it = node.children.find(e.key);
    if (it == node.children.end()) {
      if (top_level && e.key == "_id") out->Append(e.key, e.value);
      continue;
    }
    const Node::Child& child = it->second;
    if (child.kind == Kind::kInclude) {
      out->Append(e.key, e.value);
    } else if (child.kind == Kind::kNested && e.value.type() == Type::kDocument) {
      out->OpenDocument(e.key);
      IncludeInto(*child.nested, e.value.Document(), false, out);
      out->Close();
    } else if (child.kind == Kind::kNested && e.value.type() == Type::kArray) {
      out->OpenArray(e.key);
      IncludeArrayInto(*child.nested, e.value.Document(), out);
      out->Close();
    }  // a scalar under a nested path, and exclusions, are left out
  }
}

void ExcludeInto(const Node& node, bson::DocumentView doc, bson::DocumentBuilder* out);

// A value under a nested exclusion: documents reshaped, arrays element by element, scalars
// kept.
void ExcludeValueInto(const Node& node, std::string_view key, bson::ValueView value,
                      bson::DocumentBuilder* out) {
  if (value.type() == Type::kDocument) {
    out->OpenDocument(key);
    ExcludeInto(node, value.Document(), out);
    out->Close();
  } else if (value.type() == Type::kArray) {
    out->OpenArray(key);
    std::size_t index = 0;
    for (const bson::Element& e : value.Document()) {
      ExcludeValueInto(node, std::to_string(index++), e.value, out);
    }
    out->Close();
  } else {
    out->Append(key, value);
  }
}

void ExcludeInto(const Node& node, bson::DocumentView doc, bson::DocumentBuilder* out) {
  for (const bson::Element& e : doc) {
    auto it = node.children.find(e.key);
    if (it == node.children.end()) {
      out->Append(e.key, e.value);
    } else if (it->second.kind == Kind::kNested) {
      ExcludeValueInto(*it->second.nested, e.key, e.value, out);
    } else if (it->second.kind != Kind::kExclude) {
      out->Append(e.key, e.value);  // {_id: 1, a: 0} keeps _id
    }
  }
}

Status ApplyExpressions(const Node& node, MutableValue* doc, EvalContext& ctx);

StatusWith<MutableValue> ApplyExpressionsToValue(const Node& node, MutableValue value,
                                                 EvalContext& ctx) {
  if (value.IsDocument()) {
    QUARRY_RETURN_IF_ERROR(ApplyExpressions(node, &value, ctx));
    return value;
  }
  if (value.IsArray()) {
    for (MutableValue& element : value.elements()) {
      QUARRY_ASSIGN_OR_RETURN(element, ApplyExpressionsToValue(node, std::move(element), ctx));
    }
    return value;
  }
  // {"a.b": <expr>} over a scalar or a missing `a` makes `a` a document of computed fields.
  MutableValue fresh = MutableValue::NewDocument();
  QUARRY_RETURN_IF_ERROR(ApplyExpressions(node, &fresh, ctx));
  return fresh;
}

Status ApplyExpressions(const Node& node, MutableValue* doc, EvalContext& ctx) {
  for (const std::string& name : node.order) {
    const Node::Child& child = node.children.find(name)->second;
    if (child.kind == Kind::kExpression) {
      QUARRY_ASSIGN_OR_RETURN(Value v, child.expr->Evaluate(ctx));
      if (v.missing()) {
        doc->Remove(name);
      } else {
        doc->SetField(name, MutableValue(v.Owned()));
      }
    } else if (child.kind == Kind::kNested && child.nested->has_computed) {
      MutableValue* existing = doc->Find(name);
      MutableValue current = existing != nullptr ? std::move(*existing) : MutableValue();
      QUARRY_ASSIGN_OR_RETURN(MutableValue updated,
                              ApplyExpressionsToValue(*child.nested, std::move(current), ctx));
      doc->SetField(name, std::move(updated));
    }
  }
  return Status::OK();
}

}  // namespace

StatusWith<AggProjection> AggProjection::ParseProject(bson::DocumentView spec, ParseContext& ctx) {
  if (spec.empty()) {
    return LocationError(51272, ProjectError("$project",
                                             "projection specification must have at least one "
                                             "field"));
  }
  auto root = std::make_shared<Node>();
  ParseState state;
  state.stage = "$project";
  QUARRY_RETURN_IF_ERROR(ParseInto(&state, root.get(), spec, "", ctx));
  MarkComputed(root.get());
  AggProjection projection;
  if (state.saw_inclusion) {
    projection.mode_ = Mode::kInclusion;
  } else if (state.saw_exclusion) {
    projection.mode_ = Mode::kExclusion;
  } else if (state.saw_meta) {
    projection.mode_ = Mode::kInclusion;
  } else {
    // Only _id: {_id: 0} excludes it; {_id: 1} keeps just _id.
    auto id = root->children.find("_id");
    projection.mode_ = (id != root->children.end() && id->second.kind == Kind::kExclude)
                           ? Mode::kExclusion
                           : Mode::kInclusion;
  }
  projection.root_ = std::move(root);
  return projection;
}

StatusWith<AggProjection> AggProjection::ParseAddFields(bson::DocumentView spec,
                                                        ParseContext& ctx) {
  auto root = std::make_shared<Node>();
  ParseState state;
  state.stage = "$addFields";
  state.add_fields = true;
  QUARRY_RETURN_IF_ERROR(ParseInto(&state, root.get(), spec, "", ctx));
  MarkComputed(root.get());
  AggProjection projection;
  projection.mode_ = Mode::kAddFields;
  projection.root_ = std::move(root);
  return projection;
}

StatusWith<AggProjection> AggProjection::ParseUnset(bson::ValueView spec) {
  bson::DocumentBuilder exclusion;
  if (spec.type() == Type::kString) {
    exclusion.AppendInt32(spec.String(), 0);
  } else if (spec.type() == Type::kArray) {
    if (spec.Document().empty()) {
      return LocationError(31119,
                           "$unset specification must be a string or an array with at "
                           "least one field");
    }
    for (const bson::Element& e : spec.Document()) {
      if (e.value.type() != Type::kString) {
        return LocationError(31120,
                             "$unset specification must be a string or an array "
                             "containing only string values");
      }
      exclusion.AppendInt32(e.value.String(), 0);
    }
  } else {
    return LocationError(31002, "$unset specification must be a string or an array");
  }
  bson::Document doc = std::move(exclusion).Finish();
  auto root = std::make_shared<Node>();
  ParseState state;
  state.stage = "$unset";
  ParseContext unused;
  QUARRY_RETURN_IF_ERROR(ParseInto(&state, root.get(), doc, "", unused));
  AggProjection projection;
  projection.mode_ = Mode::kExclusion;
  projection.root_ = std::move(root);
  return projection;
}

StatusWith<bson::Document> AggProjection::Apply(const Value& doc, EvalContext& ctx) const {
  ctx.SetRoot(doc);
  switch (mode_) {
    case Mode::kExclusion: {
      bson::DocumentBuilder out(doc.view().Document().size());
      ExcludeInto(*root_, doc.view().Document(), &out);
      if (!root_->has_computed) return std::move(out).Finish();
      // {$meta: ...} fields, set over what the exclusion kept.
      MutableValue with_meta{Value::FromDocument(std::move(out).Finish())};
      QUARRY_RETURN_IF_ERROR(ApplyExpressions(*root_, &with_meta, ctx));
      return with_meta.ToDocument();
    }
    case Mode::kInclusion: {
      if (!root_->has_computed) {
        bson::DocumentBuilder out;
        IncludeInto(*root_, doc.view().Document(), true, &out);
        return std::move(out).Finish();
      }
      MutableValue out = IncludeDocument(*root_, doc, true);
      QUARRY_RETURN_IF_ERROR(ApplyExpressions(*root_, &out, ctx));
      return out.ToDocument();
    }
    case Mode::kAddFields: {
      MutableValue out(doc);
      QUARRY_RETURN_IF_ERROR(ApplyExpressions(*root_, &out, ctx));
      return out.ToDocument();
    }
  }
  return bson::Document();
}

}  // namespace quarry::query::stages
