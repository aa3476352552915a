#include "commands/ddl/index_modification.h"

#include <string>
#include <vector>

#include "bson/compare.h"
#include "commands/indexes/index_specs.h"

namespace quarry::commands {
namespace {

catalog::IndexInfo* FindTarget(const bson::DocumentView option, catalog::CollectionInfo* info) {
  bson::ValueView name = option.Get("name");
  bson::ValueView key = option.Get("keyPattern");
  for (catalog::IndexInfo& index : info->indexes) {
    if (!index.ready) continue;  // a build in progress is not there yet
    if (name.exists() ? index.name() == name.String()
                      : bson::CompareDocuments(index.key(), key.Document()) == 0) {
      return &index;
    }
  }
  return nullptr;
}

// The spec with `hidden` and/or `expireAfterSeconds` replaced; hidden is kept only when true,
// as mongod lists it.
bson::Document ModifiedSpec(const bson::DocumentView spec, const IndexModification& m) {
  bson::ValueView expire = m.option.Get("expireAfterSeconds");
  bson::DocumentBuilder b;
  for (const bson::Element& e : spec) {
    if (e.key == "hidden" && m.hidden.has_value()) continue;
    if (e.key == "expireAfterSeconds" && m.sets_expiry) continue;
    b.Append(e.key, e.value);
  }
  if (m.sets_expiry) b.Append("expireAfterSeconds", expire);
  if (m.hidden.value_or(false)) b.AppendBool("hidden", true);
  return std::move(b).Finish();
}

}  // namespace

StatusWith<IndexModification> ParseIndexModification(bson::ValueView option) {
  if (option.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'collMod.index' is the wrong type '" +
                                                std::string(bson::TypeAlias(option.type())) +
                                                "', expected type 'object'");
  }
  IndexModification m;
  m.option = bson::Document::Copy(option.Document());
  for (const bson::Element& e : option.Document()) {
    if (e.key == "keyPattern" && e.value.type() != bson::Type::kDocument) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'collMod.index.keyPattern' must be an "
                    "object");
    } else if (e.key == "name" && e.value.type() != bson::Type::kString) {
      return Status(ErrorCode::kTypeMismatch, "BSON field 'collMod.index.name' must be a string");
    } else if (e.key == "hidden") {
      if (e.value.type() != bson::Type::kBool) {
        return Status(ErrorCode::kTypeMismatch,
                      "BSON field 'collMod.index.hidden' must be a boolean");
      }
      m.hidden = e.value.Bool();
    } else if (e.key == "expireAfterSeconds") {
      QUARRY_RETURN_IF_ERROR(CheckExpireAfterSeconds(e.value));
      m.sets_expiry = true;
    } else if (e.key == "unique" || e.key == "prepareUnique" || e.key == "forceNonUnique") {
      return Status(ErrorCode::kNotImplemented,
                    "collMod index option '" + std::string(e.key) +
                        "' is not supported by Quarry yet: create a new unique index instead");
    } else if (e.key != "keyPattern" && e.key != "name") {
      return Status(ErrorCode::kLocation40415,
                    "BSON field 'collMod.index." + std::string(e.key) + "' is an unknown field.");
    }
  }
  const bool by_name = m.option.view().Has("name");
  const bool by_key = m.option.view().Has("keyPattern");
  if (by_name == by_key) {
    return Status(ErrorCode::kInvalidOptions,
                  by_name ? "Cannot specify both key pattern and name."
                          : "Must specify either index name or key pattern.");
  }
  if (!m.hidden.has_value() && !m.sets_expiry) {
    return Status(ErrorCode::kInvalidOptions,
                  "no expireAfterSeconds or hidden field in collMod's index option");
  }
  return m;
}

Status ApplyIndexModification(const IndexModification& modification, catalog::CollectionInfo* info,
                              bson::DocumentBuilder* reply) {
  catalog::IndexInfo* index = FindTarget(modification.option.view(), info);
  if (index != nullptr && modification.option.view().Has("keyPattern")) {
    // Indexes of one key pattern under different collations are told apart by name only.
    std::vector<const catalog::IndexInfo*> matches;
    for (const catalog::IndexInfo& other : info->indexes) {
      if (other.ready && bson::CompareDocuments(other.key(), index->key()) == 0) {
        matches.push_back(&other);
      }
    }
    if (matches.size() > 1) {
      return Status(ErrorCode::kAmbiguousIndexKeyPattern,
                    "index keyPattern " + index->key().ToJson() + " matches " +
                        std::to_string(matches.size()) +
                        " indexes, must use index name. Conflicting indexes:" +
                        matches[0]->spec.ToJson() + ", " + matches[1]->spec.ToJson());
    }
  }
  if (index == nullptr) {
    bson::DocumentView option = modification.option.view();
    const std::string target = option.Has("name") ? std::string(option.Get("name").String())
                                                  : option.Get("keyPattern").ToJson();
    return Status(ErrorCode::kIndexNotFound,
                  "cannot find index " + target + " for ns " + info->ns());
  }
  if (modification.hidden.has_value() && index->is_id_index()) {
    return Status(ErrorCode::kInvalidOptions, "can't hide _id index");
  }
  if (modification.sets_expiry && (index->is_id_index() || index->key().CountElements() != 1)) {
    return Status(ErrorCode::kInvalidOptions,
                  "TTL indexes are single-field indexes, compound indexes and the _id index do "
                  "not support TTL. Index: " +
                      std::string(index->name()));
  }
  if (modification.hidden.has_value()) {
    reply->AppendBool("hidden_old", index->spec.Get("hidden").Truthy());
    reply->AppendBool("hidden_new", *modification.hidden);
  }
  if (modification.sets_expiry) {
    bson::ValueView old_expire = index->spec.Get("expireAfterSeconds");
    if (old_expire.exists()) reply->Append("expireAfterSeconds_old", old_expire);
    reply->Append("expireAfterSeconds_new", modification.option.view().Get("expireAfterSeconds"));
  }
  // The keys do not change, so the index keeps its entries and runtime state (multikey).
  index->spec = ModifiedSpec(index->spec.view(), modification);
  return Status::OK();
}

}  // namespace quarry::commands
