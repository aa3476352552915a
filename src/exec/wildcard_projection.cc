// A wildcard index's paths: its key path and wildcardProjection become one inclusion or exclusion
// projection (mongod's WildcardKeyGenerator::createProjectionExecutor), applied to each document
// before its leaves are indexed.
#include "exec/wildcard_projection.h"

#include <algorithm>
#include <utility>

#include "bson/builder.h"

namespace quarry::exec {
namespace {

constexpr std::string_view kSubtreeSuffix = ".$**";

std::string_view FirstComponent(std::string_view path) { return path.substr(0, path.find('.')); }

// Whether `path` is `parent` or lies under it.
bool Under(std::string_view path, std::string_view parent) {
  return path.starts_with(parent) && (path.size() == parent.size() || path[parent.size()] == '.');
}

Status ProjectionError(ErrorCode code, std::string_view reason) {
  return Status(code, "Failed to parse: wildcardProjection :: caused by :: " + std::string(reason));
}

// The projection's paths, dotted, with whether each is included. Only inclusions and exclusions
// are allowed: no operators, positional paths or computed fields.
Status Flatten(bson::DocumentView spec, const std::string& prefix,
               std::vector<std::pair<std::string, bool>>* out) {
  for (const bson::Element& e : spec) {
    const std::string path =
        prefix.empty() ? std::string(e.key) : prefix + "." + std::string(e.key);
    if (e.key.empty() || e.key.front() == '$' || e.key.find(".$") != std::string_view::npos) {
      return ProjectionError(ErrorCode::kBadValue,
                             "a wildcard index's projection cannot use operators or positional "
                             "paths, found '" +
                                 path + "'");
    }
    if (e.value.type() == bson::Type::kDocument) {
      if (e.value.Document().empty()) {
        return ProjectionError(static_cast<ErrorCode>(51270),
                               "An empty sub-projection is not a valid value. Found empty object "
                               "at path");
      }
      QUARRY_RETURN_IF_ERROR(Flatten(e.value.Document(), path, out));
    } else if (e.value.IsNumber() || e.value.type() == bson::Type::kBool) {
      out->emplace_back(path, e.value.Truthy());
    } else {
      return ProjectionError(ErrorCode::kBadValue,
                             "a wildcard index's projection can only include or exclude fields, "
                             "found a computed field at '" +
                                 path + "'");
    }
  }
  return Status::OK();
}

}  // namespace

bool IsWildcardKeyPath(std::string_view path) {
  return path == "$**" || path.ends_with(kSubtreeSuffix);
}

StatusWith<WildcardProjection> WildcardProjection::Parse(std::string_view key_path,
                                                         bson::ValueView projection) {
  const std::string_view root =
      key_path == "$**" ? std::string_view() : key_path.substr(0, key_path.size() - 4);
  if (projection.exists()) {
    if (projection.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch,
                    "The field 'wildcardProjection' must be a non-empty object, but got " +
                        std::string(bson::TypeAlias(projection.type())));
    }
    if (!root.empty()) {
      return Status(ErrorCode::kFailedToParse,
                    "The field 'wildcardProjection' is only allowed when 'key' is {\"$**\": ±1}");
    }
    if (projection.Document().empty()) {
      return Status(ErrorCode::kFailedToParse,
                    "The 'wildcardProjection' field can't be an empty object");
    }
  }
  WildcardProjection out;
  std::vector<std::pair<std::string, bool>> paths;
  if (!root.empty()) {
    // A subtree index is the inclusion of its root.
    paths.emplace_back(std::string(root), true);
  } else if (projection.exists()) {
    QUARRY_RETURN_IF_ERROR(Flatten(projection.Document(), "", &paths));
  } else {
    return out;  // every field but _id, which the _id index already holds
  }
  const bool mentions_id = std::ranges::any_of(
      paths, [](const auto& path) { return FirstComponent(path.first) == "_id"; });
  bson::DocumentBuilder spec;
  for (const auto& [path, included] : paths) spec.AppendBool(path, included);
  if (!mentions_id) spec.AppendBool("_id", false);
  bson::Document spec_doc = std::move(spec).Finish();
  StatusWith<query::Projection> parsed = query::Projection::Parse(spec_doc);
  if (!parsed.ok()) return ProjectionError(parsed.status().code(), parsed.status().reason());
  out.inclusion_ = parsed.value().is_inclusion();
  out.projection_ = std::move(parsed).value();
  for (const auto& [path, included] : paths) {
    if (path == "_id") {
      out.id_included_ = included;
      if (included && out.inclusion_) out.paths_.push_back(path);
    } else {
      if (FirstComponent(path) == "_id" && included) out.id_included_ = true;
      out.paths_.push_back(path);
    }
  }
  return out;
}

bool WildcardProjection::Covers(std::string_view path) const {
  const bool id_path = FirstComponent(path) == "_id";
  if (id_path && !id_included_) return false;
  auto under = [&](const std::string& parent) { return Under(path, parent); };
  if (inclusion_) return std::ranges::any_of(paths_, under);
  return id_path || std::ranges::none_of(paths_, under);
}

bson::DocumentView WildcardProjection::Apply(bson::DocumentView doc, bson::Document* storage,
                                             bool* skip_id) const {
  *skip_id = !projection_.has_value();
  if (!projection_.has_value()) return doc;
  // Only a positional projection can fail, and Parse allows none.
  StatusWith<bson::Document> projected = projection_->Apply(doc);
  *storage = projected.ok() ? std::move(projected).value() : bson::Document();
  return storage->view();
}

}  // namespace quarry::exec
