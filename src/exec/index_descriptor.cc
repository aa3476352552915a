// Parsing a catalog index spec, with mongod's key pattern rules (index_key_validate.cpp), and the
// entry points to key generation.
#include "exec/index_descriptor.h"

#include <cmath>
#include <string_view>
#include <utility>

#include "bson/path.h"
#include "collation/collator.h"
#include "exec/index_keys_internal.h"
#include "exec/text_keys.h"
#include "exec/wildcard_keys_internal.h"
#include "exec/wildcard_projection.h"
#include "text/index_spec.h"

namespace quarry::exec {
namespace {

Status CannotCreateIndex(std::string reason) {
  return Status(ErrorCode::kCannotCreateIndex, std::move(reason));
}

// The direction of one key pattern value: a non-zero number. Strings name index types
// ("text", "2dsphere"...) that Quarry does not build.
Status CheckDirection(bson::ValueView value) {
  if (value.type() == bson::Type::kString) {
    return CannotCreateIndex("index type '" + std::string(value.String()) +
                             "' is not supported by Quarry yet");
  }
  if (!value.IsNumber()) {
    return CannotCreateIndex("Values in v:2 index key pattern cannot be of type " +
                             std::string(bson::TypeAlias(value.type())) +
                             ". Only numbers > 0, numbers < 0, and strings are allowed.");
  }
  const double direction = value.AsDouble();
  if (std::isnan(direction))
    return CannotCreateIndex("Values in the index key pattern can't be NaN.");
  if (direction == 0) return CannotCreateIndex("Values in the index key pattern can't be 0.");
  return Status::OK();
}

// A path must name fields that a document can hold and an update can set.
Status CheckPath(std::string_view path) {
  if (path.empty()) return CannotCreateIndex("Index keys cannot be an empty field.");
  bool first = true;
  for (const bson::PathComponent& part : bson::PathComponents(path)) {
    if (part.name.empty()) return CannotCreateIndex("Index keys cannot contain an empty field.");
    // $id, $ref and $db may be the fields of a DBRef inside the document.
    const bool db_ref_field =
        !first && (part.name == "$id" || part.name == "$ref" || part.name == "$db");
    if (part.name[0] == '$' && !db_ref_field) {
      return CannotCreateIndex(
          "Index key contains an illegal field name: field name starts with '$'.");
    }
    first = false;
  }
  return Status::OK();
}

// mongod's rules for a wildcard index ($** or a.$**): one key field, none of the options that
// need one key per document, and a wildcardProjection only on $**.
Status ParseWildcard(bson::DocumentView spec, bson::DocumentView key,
                     std::shared_ptr<const WildcardProjection>* out) {
  const std::string_view key_path = key.FirstKey();
  if (key.CountElements() != 1 || !IsWildcardKeyPath(key_path)) {
    return CannotCreateIndex("compound wildcard indexes are not supported by Quarry yet");
  }
  if (key_path != "$**") {
    QUARRY_RETURN_IF_ERROR(CheckPath(key_path.substr(0, key_path.size() - 4)));
  }
  QUARRY_ASSIGN_OR_RETURN(WildcardProjection projection,
                          WildcardProjection::Parse(key_path, spec.Get("wildcardProjection")));
  if (spec.Get("sparse").Truthy()) {
    return CannotCreateIndex("Index type 'wildcard' does not support the sparse option");
  }
  if (spec.Get("unique").Truthy()) {
    return CannotCreateIndex("Index type 'wildcard' does not support the unique option");
  }
  if (spec.Get("expireAfterSeconds").exists()) {
    return CannotCreateIndex("Index type 'wildcard' cannot be a TTL index");
  }
  *out = std::make_shared<const WildcardProjection>(std::move(projection));
  return Status::OK();
}

}  // namespace

StatusWith<IndexDescriptor> IndexDescriptor::Parse(bson::DocumentView spec, storage::IndexId id) {
  IndexDescriptor index;
  index.id_ = id;
  index.spec_ = bson::Document::Copy(spec);
  bson::ValueView key = index.spec_.Get("key");
  if (key.type() != bson::Type::kDocument || key.Document().empty()) {
    return CannotCreateIndex("index spec must have a non-empty 'key' object");
  }
  bool wildcard = false;
  const bool text = key.Document().Get(text::kTermField).type() == bson::Type::kString;
  if (text) {
    QUARRY_ASSIGN_OR_RETURN(text::TextIndexSpec spec, text::TextIndexSpec::Parse(index.spec_));
    index.text_ = std::make_shared<const text::TextIndexSpec>(std::move(spec));
  }
  for (const bson::Element& element : key.Document()) {
    if (index.fields_.size() == kMaxIndexFields) {
      return CannotCreateIndex("too many fields in compound index");
    }
    if (text && (element.key == text::kTermField || element.key == text::kScoreField)) {
      index.fields_.push_back(IndexField{std::string(element.key), false});
      continue;
    }
    QUARRY_RETURN_IF_ERROR(CheckDirection(element.value));
    if (IsWildcardKeyPath(element.key)) {
      wildcard = true;
    } else {
      QUARRY_RETURN_IF_ERROR(CheckPath(element.key));
    }
    index.fields_.push_back(IndexField{std::string(element.key), element.value.AsDouble() < 0});
  }
  if (wildcard) {
    QUARRY_RETURN_IF_ERROR(ParseWildcard(index.spec_, key.Document(), &index.wildcard_));
  } else if (index.spec_.Get("wildcardProjection").exists()) {
    return Status(ErrorCode::kBadValue,
                  "The field 'wildcardProjection' is only allowed in an 'wildcard' index");
  }
  bson::ValueView name = index.spec_.Get("name");
  if (name.type() != bson::Type::kString || name.String().empty()) {
    return CannotCreateIndex("index spec must have a non-empty 'name' string");
  }
  index.name_ = std::string(name.String());
  // The _id index is unique without saying so.
  index.unique_ = index.spec_.Get("unique").Truthy() || index.name_ == "_id_";
  index.sparse_ = index.spec_.Get("sparse").Truthy();
  index.hidden_ = index.spec_.Get("hidden").Truthy();
  bson::ValueView collation = index.spec_.Get("collation");
  if (collation.exists()) {
    QUARRY_ASSIGN_OR_RETURN(index.collator_, collation::Collator::ParseArgument(collation, ""));
    if (text && index.collator_ != nullptr) {
      return CannotCreateIndex("Index type 'text' does not support collation: " +
                               collation.ToJson());
    }
  }
  bson::ValueView partial = index.spec_.Get("partialFilterExpression");
  if (partial.exists()) {
    if (partial.type() != bson::Type::kDocument) {
      return CannotCreateIndex("partialFilterExpression for an index must be a document");
    }
    // As in mongod, the filter compares strings under the index's collation.
    QUARRY_ASSIGN_OR_RETURN(
        query::Matcher filter,
        query::Matcher::Parse(partial.Document(), bson::DocumentView(), index.collator_));
    if (filter.text_search() != nullptr) {
      return CannotCreateIndex("Expression not supported in partial index: $text");
    }
    index.partial_filter_ = std::move(filter);
  }
  return index;
}

bson::DocumentView IndexDescriptor::key_pattern() const { return spec_.Get("key").Document(); }

StatusWith<std::vector<IndexKey>> IndexDescriptor::KeysOf(bson::DocumentView doc,
                                                          bool with_values) const {
  QUARRY_ASSIGN_OR_RETURN(DocumentKeys keys, KeysAndMultikeyOf(doc, with_values));
  return std::move(keys.keys);
}

StatusWith<DocumentKeys> IndexDescriptor::KeysAndMultikeyOf(bson::DocumentView doc,
                                                            bool with_values) const {
  if (partial_filter_.has_value() && !partial_filter_->Matches(doc)) return DocumentKeys();
  const KeyOutput output = with_values ? KeyOutput::kKeysWithValues : KeyOutput::kKeys;
  if (wildcard_ != nullptr) return GenerateWildcardKeys(*this, doc, output);
  if (text_ != nullptr) return TextKeysOf(*text_, doc);
  return GenerateIndexKeys(*this, doc, output);
}

StatusWith<bool> IndexDescriptor::IsMultikeyFor(bson::DocumentView doc) const {
  if (partial_filter_.has_value() && !partial_filter_->Matches(doc)) return false;
  if (text_ != nullptr) return false;  // one key per term, never per array element
  QUARRY_ASSIGN_OR_RETURN(DocumentKeys keys,
                          wildcard_ != nullptr
                              ? GenerateWildcardKeys(*this, doc, KeyOutput::kMultikeyOnly)
                              : GenerateIndexKeys(*this, doc, KeyOutput::kMultikeyOnly));
  return keys.multikey;
}

}  // namespace quarry::exec
