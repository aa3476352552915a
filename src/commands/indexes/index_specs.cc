#include "commands/indexes/index_specs.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "bson/builder.h"
#include "bson/compare.h"
#include "collation/collator.h"
#include "exec/index_descriptor.h"
#include "text/index_spec.h"

namespace quarry::commands {
namespace {

constexpr double kMaxExpireAfterSeconds = 2147483647;

// Spec fields that hold the index's identity or bookkeeping rather than an option.
bool IsStructuralField(std::string_view field) {
  return field == "v" || field == "key" || field == "name" || field == "ns" ||
         field == "background";
}

bool IsTextIndexOption(std::string_view field) {
  return field == "weights" || field == "default_language" || field == "language_override" ||
         field == "textIndexVersion";
}

// Options that only geo indexes take; Quarry builds none.
bool IsSpecialIndexOption(std::string_view field) {
  static constexpr std::string_view kFields[] = {
      "2dsphereIndexVersion", "bits", "min", "max", "bucketSize", "coarsestIndexedLevel",
      "finestIndexedLevel"};
  return std::ranges::find(kFields, field) != std::end(kFields);
}

Status CheckOption(const bson::Element& e, bool text) {
  const std::string field(e.key);
  if (IsTextIndexOption(field)) {
    if (text) return Status::OK();  // text::TextIndexSpec::Normalize checks them
    return Status(ErrorCode::kCannotCreateIndex,
                  "the field '" + field + "' is only valid for a text index");
  }
  auto expect = [&](bool ok, std::string_view expected) -> Status {
    if (ok) return Status::OK();
    return Status(ErrorCode::kTypeMismatch, "The field '" + field + "' must be " +
                                                std::string(expected) + ", not " +
                                                std::string(bson::TypeAlias(e.value.type())));
  };
  if (field == "unique" || field == "sparse") {
    return expect(e.value.type() == bson::Type::kBool || e.value.IsNumber(), "a boolean");
  }
  if (field == "hidden") return expect(e.value.type() == bson::Type::kBool, "a boolean");
  if (field == "partialFilterExpression") {
    return expect(e.value.type() == bson::Type::kDocument, "an object");
  }
  if (field == "collation") {
    return collation::Collator::ParseArgument(e.value, "createIndexes.indexes.").status();
  }
  if (field == "storageEngine") {
    QUARRY_RETURN_IF_ERROR(expect(e.value.type() == bson::Type::kDocument, "an object"));
    if (e.value.Document().empty()) return Status::OK();
    return Status(ErrorCode::kNotImplemented,
                  "storageEngine options for an index are not supported: Quarry has one "
                  "storage engine");
  }
  if (field == "expireAfterSeconds") return CheckExpireAfterSeconds(e.value);
  if (field == "prepareUnique" || field == "clustered") {
    return Status(ErrorCode::kNotImplemented,
                  "index option '" + field + "' is not supported by Quarry yet");
  }
  if (IsSpecialIndexOption(field)) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "index option '" + field +
                      "' belongs to geospatial indexes, which Quarry does not support yet");
  }
  return Status::OK();
}

bool IsKnownOption(std::string_view field) {
  static constexpr std::string_view kFields[] = {"unique",
                                                 "sparse",
                                                 "hidden",
                                                 "partialFilterExpression",
                                                 "collation",
                                                 "storageEngine",
                                                 "expireAfterSeconds",
                                                 "prepareUnique",
                                                 "clustered",
                                                 "dropDups",
                                                 "wildcardProjection"};
  return std::ranges::find(kFields, field) != std::end(kFields) || IsTextIndexOption(field) ||
         IsSpecialIndexOption(field);
}

// The options of a spec, by name, so that the order they were given in does not matter.
std::vector<std::pair<std::string_view, bson::ValueView>> OptionsOf(bson::DocumentView spec) {
  std::vector<std::pair<std::string_view, bson::ValueView>> options;
  for (const bson::Element& e : spec) {
    if (IsStructuralField(e.key)) continue;
    // Falsy unique/sparse/hidden are the defaults: {unique: false} equals no unique.
    if ((e.key == "unique" || e.key == "sparse" || e.key == "hidden") && !e.value.Truthy()) {
      continue;
    }
    options.emplace_back(e.key, e.value);
  }
  std::ranges::sort(options, {}, &std::pair<std::string_view, bson::ValueView>::first);
  return options;
}

bool SameOptions(bson::DocumentView a, bson::DocumentView b) {
  auto left = OptionsOf(a);
  auto right = OptionsOf(b);
  return std::ranges::equal(left, right, [](const auto& x, const auto& y) {
    return x.first == y.first &&
           (x.first == "unique" || x.first == "sparse" || x.first == "hidden" ||
            bson::CompareValues(x.second, y.second) == 0);
  });
}

// Options under which two indexes of one key pattern are different indexes (mongod allows
// both to exist).
bool SameIdentity(bson::DocumentView a, bson::DocumentView b) {
  for (std::string_view field : {"partialFilterExpression", "collation", "wildcardProjection"}) {
    if (bson::CompareValues(a.Get(field), b.Get(field)) != 0) return false;
  }
  return true;
}

// TTL indexes hold one date field; the _id index never expires anything.
Status CheckTtlKey(bson::DocumentView key) {
  if (key.CountElements() != 1) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "TTL indexes are single-field indexes, compound indexes do not support TTL. "
                  "Index key: " +
                      key.ToJson());
  }
  if (key.FirstKey() == "_id") {
    return Status(ErrorCode::kCannotCreateIndex,
                  "The field 'expireAfterSeconds' is not valid for an _id index specification");
  }
  return Status::OK();
}

}  // namespace

bool IsIdIndexKey(bson::DocumentView key) {
  if (key.CountElements() != 1 || key.FirstKey() != "_id") return false;
  bson::ValueView direction = key.Get("_id");
  return direction.IsNumber() && direction.AsDouble() == 1.0;
}

Status CheckExpireAfterSeconds(bson::ValueView value) {
  if (!value.IsNumber()) {
    return Status(
        ErrorCode::kCannotCreateIndex,
        "TTL index 'expireAfterSeconds' option must be numeric, but received a type of '" +
            std::string(bson::TypeAlias(value.type())) + "'");
  }
  const double seconds = value.AsDouble();
  if (!(seconds >= 0 && seconds <= kMaxExpireAfterSeconds)) {
    return Status(ErrorCode::kCannotCreateIndex,
                  "TTL index 'expireAfterSeconds' option must be within an acceptable range "
                  "[0, 2147483647], got " +
                      value.ToJson());
  }
  return Status::OK();
}

StatusWith<bson::Document> NormalizeIndexSpec(bson::DocumentView spec,
                                              bool ignore_unknown_options) {
  bson::ValueView key = spec.Get("key");
  if (key.type() != bson::Type::kDocument || key.Document().empty()) {
    return Status(ErrorCode::kCannotCreateIndex, "index spec must have a non-empty 'key' object");
  }
  bson::ValueView name = spec.Get("name");
  if (name.type() != bson::Type::kString || name.String().empty()) {
    return Status(ErrorCode::kCannotCreateIndex, "index spec must have a non-empty 'name' string");
  }
  bson::ValueView version = spec.Get("v");
  if (version.exists() &&
      (!version.IsNumber() || (version.AsDouble() != 1 && version.AsDouble() != 2))) {
    return Status(
        ErrorCode::kCannotCreateIndex,
        "this version of Quarry supports index versions 1 and 2 only, got " + version.ToJson());
  }
  const bool text = text::TextIndexSpec::IsTextKeyPattern(key.Document());
  bson::DocumentBuilder b;
  b.AppendInt32("v", 2);
  b.AppendDocument("key", key.Document());
  b.AppendString("name", name.String());
  for (const bson::Element& e : spec) {
    if (IsStructuralField(e.key)) continue;
    if (!IsKnownOption(e.key)) {
      if (ignore_unknown_options) continue;
      return Status(
          ErrorCode::kInvalidIndexSpecificationOption,
          "The field '" + std::string(e.key) +
              "' is not valid for an index specification. Specification: " + spec.ToJson());
    }
    QUARRY_RETURN_IF_ERROR(CheckOption(e, text));
    if (e.key != "dropDups") b.Append(e.key, e.value);  // dropDups has had no effect since 3.0
  }
  bson::Document normalized = std::move(b).Finish();
  if (text) {
    QUARRY_ASSIGN_OR_RETURN(normalized, text::TextIndexSpec::Normalize(normalized));
  }
  // The key pattern and partial filter, checked as the index will read them.
  if (spec.Get("expireAfterSeconds").exists()) {
    QUARRY_RETURN_IF_ERROR(CheckTtlKey(key.Document()));
  }
  if (!IsIdIndexKey(key.Document())) {
    StatusWith<exec::IndexDescriptor> parsed = exec::IndexDescriptor::Parse(normalized, 0);
    if (!parsed.ok()) return parsed.status();
  } else if (spec.Get("unique").exists() && !spec.Get("unique").Truthy()) {
    return Status(ErrorCode::kInvalidIndexSpecificationOption,
                  "The field 'unique' is not valid for an _id index specification");
  }
  return normalized;
}

StatusWith<bson::Document> ResolveIndexCollation(bson::DocumentView spec,
                                                 bson::DocumentView collection_options) {
  bson::ValueView given = spec.Get("collation");
  std::optional<bson::Document> collation;
  if (given.exists()) {
    QUARRY_ASSIGN_OR_RETURN(collation::CollatorPtr collator,
                            collation::Collator::ParseArgument(given, "createIndexes.indexes."));
    if (collator != nullptr) collation = bson::Document::Copy(collator->spec());
  } else if (bson::ValueView inherited = collection_options.Get("collation");
             inherited.type() == bson::Type::kDocument) {
    collation = bson::Document::Copy(inherited.Document());
  }
  bson::DocumentBuilder b;
  for (const bson::Element& e : spec) {
    if (e.key != "collation") {
      b.Append(e.key, e.value);
    } else if (collation.has_value()) {
      b.AppendDocument("collation", collation->view());  // where the request put it
    }
  }
  if (!given.exists() && collation.has_value()) b.AppendDocument("collation", collation->view());
  return std::move(b).Finish();
}

StatusWith<IndexMatch> MatchExistingIndex(const catalog::CollectionInfo& info,
                                          bson::DocumentView spec) {
  bson::DocumentView key = spec.Get("key").Document();
  std::string_view name = spec.Get("name").String();
  for (const catalog::IndexInfo& existing : info.indexes) {
    const bool same_name = existing.name() == name;
    const bool same_key = bson::CompareDocuments(existing.key(), key) == 0;
    if (same_name && !same_key) {
      return Status(ErrorCode::kIndexKeySpecsConflict,
                    "An existing index has the same name as the requested index but a different "
                    "key. Requested index: " +
                        spec.ToJson() + ", existing index: " + existing.spec.ToJson());
    }
    if (same_name) {
      if (SameOptions(existing.spec, spec)) return IndexMatch::kSame;
      return Status(ErrorCode::kIndexOptionsConflict,
                    "An equivalent index already exists with the same name but different "
                    "options. Requested index: " +
                        spec.ToJson() + ", existing index: " + existing.spec.ToJson());
    }
    if (same_key && SameIdentity(existing.spec, spec)) {
      if (!SameOptions(existing.spec, spec)) {
        // Two text indexes on other fields store the same key: their weights differ.
        return Status(ErrorCode::kIndexOptionsConflict,
                      "An equivalent index already exists with a different name and options. "
                      "Requested index: " +
                          spec.ToJson() + ", existing index: " + existing.spec.ToJson());
      }
      return Status(ErrorCode::kIndexOptionsConflict,
                    "Index already exists with a different name: " + std::string(existing.name()));
    }
  }
  return IndexMatch::kNone;
}

}  // namespace quarry::commands
