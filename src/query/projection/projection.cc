// Projection parsing: the mode (inclusion or exclusion), the _id default, and mongod's errors
// for mixing modes and colliding paths.
#include "query/projection/projection.h"

#include "query/match/field_path.h"
#include "query/projection/projection_internal.h"

namespace quarry::query {
namespace {

enum class Mode { kUnknown, kInclusion, kExclusion };

Status Error(int code, std::string reason) {
  return Status(static_cast<ErrorCode>(code), std::move(reason));
}

bool ProjectionNodeHasComputed(const ProjectionNode& node) {
  if (node.kind == ProjectionKind::kComputed) return true;
  for (const auto& [name, child] : node.children) {
    if (ProjectionNodeHasComputed(*child)) return true;
  }
  return false;
}

class Parser {
 public:
  Status ParseLevel(bson::DocumentView spec, const std::string& prefix);
  std::unique_ptr<ProjectionNode> TakeRoot() { return std::move(root_); }
  Mode mode() const { return mode_; }
  bool positional() const { return positional_; }
  std::optional<bool> id_included() const { return id_included_; }

 private:
  Status RequireMode(Mode wanted, const std::string& path);
  Status ParseOperatorValue(const std::string& path, bson::DocumentView spec);
  Status ParseSlice(const std::string& path, bson::ValueView arg);
  // Adds `node` at `path`, failing as mongod on collisions with paths already there.
  Status AddNode(const std::string& path, std::unique_ptr<ProjectionNode> node);

  std::unique_ptr<ProjectionNode> root_ = std::make_unique<ProjectionNode>();
  Mode mode_ = Mode::kUnknown;
  bool positional_ = false;
  std::optional<bool> id_included_;
};

Status Parser::RequireMode(Mode wanted, const std::string& path) {
  if (mode_ == Mode::kUnknown) {
    mode_ = wanted;
    return Status::OK();
  }
  if (mode_ == wanted) return Status::OK();
  if (wanted == Mode::kInclusion) {
    return Error(31253, "Cannot do inclusion on field " + path + " in exclusion projection");
  }
  return Error(31254, "Cannot do exclusion on field " + path + " in inclusion projection");
}

Status Parser::AddNode(const std::string& path, std::unique_ptr<ProjectionNode> node) {
  const FieldPath parts = FieldPath::FromDotted(path);
  ProjectionNode* current = root_.get();
  for (std::size_t part_idx = 0; part_idx < parts.size(); ++part_idx) {
    const std::string_view name = parts[part_idx];
    ProjectionNode* child = current->Find(name);
    if (part_idx + 1 == parts.size()) {
      if (child != nullptr) return Error(31250, "Path collision at " + path);
      current->children.emplace_back(std::string(name), std::move(node));
      return Status::OK();
    }
    if (child == nullptr) {
      auto interior = std::make_unique<ProjectionNode>();
      child = interior.get();
      current->children.emplace_back(std::string(name), std::move(interior));
    } else if (child->kind != ProjectionKind::kPath) {
      return Error(31249, "Path collision at " + path + " remaining portion " +
                              std::string(parts.Suffix(part_idx + 1)));
    }
    current = child;
  }
  return Status::OK();
}

Status Parser::ParseLevel(bson::DocumentView spec, const std::string& prefix) {
  for (const bson::Element& element : spec) {
    const std::string key(element.key);
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    const bson::ValueView value = element.value;
    if (key.empty()) return Error(40352, "FieldPath cannot be constructed with empty string");

    // field.$: the array element the filter matched.
    if (path.size() >= 2 && path.compare(path.size() - 2, 2, ".$") == 0) {
      const std::string base = path.substr(0, path.size() - 2);
      if (base.find('$') != std::string::npos) {
        return Error(31394,
                     "As of 4.4, it's illegal to specify positional operator in the "
                     "middle of a path.Positional projection may only be used at the end, "
                     "for example: a.b.$. If the query previously used a form like "
                     "a.b.$.d, remove the parts following the '$' and the results will "
                     "be equivalent.");
      }
      if (positional_) {
        return Error(31276, "Cannot specify more than one positional projection per query.");
      }
      if (!(value.IsNumber() || value.type() == bson::Type::kBool) || !value.Truthy()) {
        return Error(31395, "positional projection cannot be used with exclusion");
      }
      QUARRY_RETURN_IF_ERROR(RequireMode(Mode::kInclusion, path));
      positional_ = true;
      auto node = std::make_unique<ProjectionNode>();
      node->kind = ProjectionKind::kPositional;
      QUARRY_RETURN_IF_ERROR(AddNode(base, std::move(node)));
      continue;
    }
    if (key[0] == '$' || path.find(".$") != std::string::npos) {
      return Error(16410,
                   "FieldPath field names may not start with '$'. Consider using "
                   "$getField or $setField.");
    }

    if (value.IsNumber() || value.type() == bson::Type::kBool) {
      const bool include = value.Truthy();
      auto node = std::make_unique<ProjectionNode>();
      node->kind = include ? ProjectionKind::kInclude : ProjectionKind::kExclude;
      if (path == "_id") {
        id_included_ = include;
      } else {
        QUARRY_RETURN_IF_ERROR(RequireMode(include ? Mode::kInclusion : Mode::kExclusion, path));
      }
      QUARRY_RETURN_IF_ERROR(AddNode(path, std::move(node)));
      continue;
    }
    if (value.type() == bson::Type::kDocument) {
      bson::DocumentView sub = value.Document();
      if (sub.empty()) {
        return Error(51270,
                     "An empty sub-projection is not a valid value. Found empty object "
                     "at path");
      }
      const std::string_view first = sub.FirstKey();
      if (!first.empty() && first[0] == '$') {
        QUARRY_RETURN_IF_ERROR(ParseOperatorValue(path, sub));
      } else {
        QUARRY_RETURN_IF_ERROR(ParseLevel(sub, path));
      }
      continue;
    }
    // Any other value is an expression: a literal or a "$field" path.
    if (mode_ == Mode::kExclusion) {
      return Error(31252, "Cannot use expression other than $meta in exclusion projection");
    }
    QUARRY_RETURN_IF_ERROR(RequireMode(Mode::kInclusion, path));
    auto node = std::make_unique<ProjectionNode>();
    node->kind = ProjectionKind::kComputed;
    QUARRY_ASSIGN_OR_RETURN(node->computed, ParseComputedValue(value));
    QUARRY_RETURN_IF_ERROR(AddNode(path, std::move(node)));
  }
  return Status::OK();
}

Status Parser::ParseOperatorValue(const std::string& path, bson::DocumentView spec) {
  const std::string_view op = spec.FirstKey();
  const bson::ValueView arg = spec.begin()->value;
  if (op == "$slice" && spec.CountElements() == 1) return ParseSlice(path, arg);
  if (op == "$elemMatch" && spec.CountElements() == 1) {
    if (path.find('.') != std::string::npos) {
      return Error(31275, "Cannot use $elemMatch projection on a nested field.");
    }
    if (arg.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kBadValue, "elemMatch: Invalid argument, object required.");
    }
    if (mode_ == Mode::kExclusion) {
      return Error(31253, "Cannot do inclusion on field " + path + " in exclusion projection");
    }
    QUARRY_RETURN_IF_ERROR(RequireMode(Mode::kInclusion, path));
    bson::DocumentBuilder filter;
    filter.OpenDocument(path).AppendDocument("$elemMatch", arg.Document()).Close();
    bson::Document filter_doc = std::move(filter).Finish();
    QUARRY_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(filter_doc));
    auto node = std::make_unique<ProjectionNode>();
    node->kind = ProjectionKind::kElemMatch;
    node->elem_match = std::move(matcher);
    return AddNode(path, std::move(node));
  }
  if (op == "$meta" && arg.type() == bson::Type::kString && arg.String() == "textScore") {
    // A find with $text runs as an aggregate, whose $project reads the score.
    return Error(40218, "query requires text score metadata, but it is not available");
  }
  if (op == "$meta") {
    return Status(ErrorCode::kBadValue,
                  "$meta projection is not supported: Quarry has no text or search scores in "
                  "find");
  }
  // An expression operator ({$add: [...]}) computes the field.
  if (mode_ == Mode::kExclusion) {
    return Error(31252, "Cannot use expression other than $meta in exclusion projection");
  }
  QUARRY_RETURN_IF_ERROR(RequireMode(Mode::kInclusion, path));
  bson::DocumentBuilder holder;
  holder.AppendDocument("v", spec);
  bson::Document holder_doc = std::move(holder).Finish();
  auto node = std::make_unique<ProjectionNode>();
  node->kind = ProjectionKind::kComputed;
  QUARRY_ASSIGN_OR_RETURN(node->computed, ParseComputedValue(holder_doc.Get("v")));
  return AddNode(path, std::move(node));
}

Status Parser::ParseSlice(const std::string& path, bson::ValueView arg) {
  auto node = std::make_unique<ProjectionNode>();
  node->kind = ProjectionKind::kSlice;
  if (arg.IsNumber()) {
    node->slice_limit = arg.AsInt64();
  } else if (arg.type() == bson::Type::kArray) {
    bson::DocumentView elements = arg.Document();
    if (elements.CountElements() != 2) {
      return Error(28724, "First argument to $slice must be an array");
    }
    auto it = elements.begin();
    const bson::ValueView skip = it->value;
    ++it;
    const bson::ValueView limit = it->value;
    if (!skip.IsNumber() || !limit.IsNumber()) {
      return Error(28724, "First argument to $slice must be an array");
    }
    if (limit.AsInt64() <= 0) return Error(28724, "$slice limit must be positive");
    node->slice_has_skip = true;
    node->slice_skip = skip.AsInt64();
    node->slice_limit = limit.AsInt64();
  } else {
    return Error(28667, "$slice only supports numbers and [skip, limit] arrays");
  }
  return AddNode(path, std::move(node));
}

}  // namespace

bool ProjectionNode::HasComputed() const { return ProjectionNodeHasComputed(*this); }

StatusWith<Projection> Projection::Parse(bson::DocumentView spec, const Matcher*) {
  Projection projection;
  if (spec.empty()) return projection;
  auto owned = std::make_shared<const bson::Document>(bson::Document::Copy(spec));
  Parser parser;
  QUARRY_RETURN_IF_ERROR(parser.ParseLevel(owned->view(), ""));
  std::unique_ptr<ProjectionNode> root = parser.TakeRoot();
  bool inclusion = parser.mode() == Mode::kInclusion;
  if (parser.mode() == Mode::kUnknown) inclusion = parser.id_included().value_or(false);
  if (inclusion && !parser.id_included().has_value() && root->Find("_id") == nullptr) {
    auto id = std::make_unique<ProjectionNode>();
    id->kind = ProjectionKind::kInclude;
    root->children.emplace(root->children.begin(), "_id", std::move(id));
  }
  projection.spec_ = std::move(owned);
  projection.root_ = std::shared_ptr<const ProjectionNode>(std::move(root));
  projection.identity_ = false;
  projection.positional_ = parser.positional();
  projection.inclusion_ = inclusion;
  return projection;
}

StatusWith<bson::Document> Projection::Apply(bson::DocumentView doc,
                                             const MatchDetails* details) const {
  if (identity_) return bson::Document::Copy(doc);
  ApplyContext context{doc, details, Status::OK()};
  bson::DocumentBuilder out;
  if (inclusion_) {
    ApplyInclusion(*root_, doc, &context, &out);
  } else {
    ApplyExclusion(*root_, doc, &context, &out);
  }
  QUARRY_RETURN_IF_ERROR(context.status);
  return std::move(out).Finish();
}

}  // namespace quarry::query
