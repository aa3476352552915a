// UpdateSpec: parsing the three kinds of update, applying them, and building upserted
// documents.
#include "query/update/update.h"

#include <atomic>
#include <chrono>

#include "base/clock.h"
#include "bson/compare.h"
#include "bson/path.h"
#include "bson/validate.h"
#include "query/pipeline/pipeline.h"
#include "query/update/update_internal.h"

namespace quarry::query {

using update_internal::ApplyModifiers;
using update_internal::ApplyState;
using update_internal::ModifierUpdate;

struct UpdateSpec::Impl {
  Kind kind = Kind::kModifiers;
  std::shared_ptr<ModifierUpdate> modifiers;
  std::optional<update_internal::TopLevelUpdate> top_level;  // when modifiers allow it
  bson::Document replacement;
  std::optional<Pipeline> pipeline;
  bool describe = false;
};

namespace {

constexpr std::size_t kMaxDocumentBytes = 16 * 1024 * 1024;

// A timestamp for $currentDate: this second, with an increment that only grows.
std::uint64_t NextTimestamp() {
  static std::atomic<std::uint64_t> last{0};
  const auto seconds = static_cast<std::uint64_t>(NowMillis() / 1000);
  std::uint64_t candidate = (seconds << 32) | 1;
  std::uint64_t previous = last.load();
  while (true) {
    std::uint64_t next = candidate > previous ? candidate : previous + 1;
    if (last.compare_exchange_weak(previous, next)) return next;
  }
}

bool IsAllowedInUpdatePipeline(std::string_view stage) {
  return stage == "$addFields" || stage == "$set" || stage == "$project" || stage == "$unset" ||
         stage == "$replaceRoot" || stage == "$replaceWith";
}

// `doc` with _id as its first field (`id` when the document has none).
bson::Document WithIdFirst(bson::DocumentView doc, bson::ValueView id) {
  bson::DocumentBuilder b;
  bson::ValueView own = doc.Get("_id");
  b.Append("_id", own.exists() ? own : id);
  for (const bson::Element& e : doc) {
    if (e.key != "_id") b.Append(e.key, e.value);
  }
  return std::move(b).Finish();
}

// `doc` fits MongoDB's limits. `may_nest_deeper` is false when the update set no document or
// array, so the result nests no deeper than the stored document, which was checked.
Status CheckResult(const bson::Document& doc, bool may_nest_deeper = true) {
  if (doc.size() > kMaxDocumentBytes) {
    return Status(
        ErrorCode::kBSONObjectTooLarge,
        "Resulting document after update is larger than " + std::to_string(kMaxDocumentBytes));
  }
  bson::ValueView id = doc.Get("_id");
  if (id.type() == bson::Type::kArray) {
    return Status(ErrorCode::kInvalidIdField, "The '_id' value cannot be of type array");
  }
  if (may_nest_deeper &&
      bson::NestingDepth(doc.view().data(), bson::kMaxStorageDepth) > bson::kMaxStorageDepth) {
    return Status(ErrorCode::kOverflow, "Document exceeds maximum nesting depth of " +
                                            std::to_string(bson::kMaxStorageDepth));
  }
  return Status::OK();
}

Status ImmutableIdAltered(bson::ValueView id) {
  return Status(ErrorCode::kImmutableField,
                "After applying the update, the (immutable) field '_id' was found to have been "
                "altered to _id: " +
                    id.ToJson());
}

}  // namespace

StatusWith<UpdateSpec> UpdateSpec::Parse(bson::ValueView update, const UpdateOptions& options) {
  if (update.type() == bson::Type::kArray) return ParsePipeline(update.Document(), options);
  if (update.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kFailedToParse,
                  "Update argument must be either an object or an array");
  }
  return Parse(update.Document(), options);
}

StatusWith<UpdateSpec> UpdateSpec::Parse(bson::DocumentView update, const UpdateOptions& options) {
  auto impl = std::make_shared<Impl>();
  impl->describe = options.describe_changes;
  if (!update.empty() && update.FirstKey()[0] == '$') {
    impl->kind = Kind::kModifiers;
    QUARRY_ASSIGN_OR_RETURN(impl->modifiers, update_internal::ParseModifiers(update, options));
    impl->top_level = update_internal::PlanTopLevelUpdate(*impl->modifiers);
  } else {
    impl->kind = Kind::kReplacement;
    for (const bson::Element& e : update) {
      if (!e.key.empty() && e.key[0] == '$') {
        return Status(ErrorCode::kDollarPrefixedFieldName,
                      "The dollar ($) prefixed field '" + std::string(e.key) + "' in '" +
                          std::string(e.key) +
                          "' is not allowed in the context of an update's replacement document. "
                          "Consider using an aggregation pipeline with $replaceWith.");
      }
    }
    if (!options.array_filters.empty()) {
      return Status(ErrorCode::kFailedToParse,
                    "Cannot use array filters with a replacement-style update");
    }
    impl->replacement = bson::Document::Copy(update);
  }
  UpdateSpec spec;
  spec.impl_ = std::move(impl);
  return spec;
}

StatusWith<UpdateSpec> UpdateSpec::ParsePipeline(bson::DocumentView stages,
                                                 const UpdateOptions& options) {
  if (!options.array_filters.empty()) {
    return Status(ErrorCode::kFailedToParse,
                  "arrayFilters may not be specified for pipeline-style updates");
  }
  for (const bson::Element& e : stages) {
    if (e.value.type() == bson::Type::kDocument && e.value.Document().CountElements() == 1 &&
        !IsAllowedInUpdatePipeline(e.value.Document().FirstKey())) {
      return Status(ErrorCode::kInvalidOptions, std::string(e.value.Document().FirstKey()) +
                                                    " is not allowed to be used within an update");
    }
  }
  PipelineContext ctx;
  ctx.let = bson::Document::Copy(options.let);
  ctx.collator = options.collator;
  QUARRY_ASSIGN_OR_RETURN(Pipeline pipeline, Pipeline::Parse(stages, std::move(ctx)));
  auto impl = std::make_shared<Impl>();
  impl->kind = Kind::kPipeline;
  impl->describe = options.describe_changes;
  impl->pipeline = std::move(pipeline);
  UpdateSpec spec;
  spec.impl_ = std::move(impl);
  return spec;
}

UpdateSpec::Kind UpdateSpec::kind() const { return impl_->kind; }

StatusWith<UpdateResult> UpdateSpec::Apply(bson::DocumentView doc, const MatchDetails& details,
                                           bool is_insert) const {
  UpdateResult result;
  const bson::ValueView original_id = doc.Get("_id");
  bool may_nest_deeper = true;
  switch (impl_->kind) {
    case Kind::kModifiers: {
      if (impl_->top_level.has_value() && !is_insert) {
        std::optional<bson::Document> updated =
            update_internal::ApplyTopLevelUpdate(*impl_->top_level, doc);
        if (updated.has_value()) {
          result.new_doc = std::move(*updated);
          may_nest_deeper = impl_->top_level->sets_nested;
          break;
        }
      }
      MutableValue root = MutableValue::OfDocument(doc);
      ApplyState state;
      state.details = &details;
      state.is_insert = is_insert;
      state.original = doc;
      state.now_millis = NowMillis();
      state.now_timestamp = NextTimestamp();
      QUARRY_RETURN_IF_ERROR(ApplyModifiers(*impl_->modifiers, &root, state));
      result.new_doc = root.ToDocument();
      if (!is_insert && original_id.exists()) {
        bson::ValueView new_id = result.new_doc.Get("_id");
        if (!new_id.exists() || !BinaryEqual(new_id, original_id)) {
          return Status(ErrorCode::kImmutableField,
                        "Performing an update on the path '_id' would modify the immutable field "
                        "'_id'");
        }
      }
      break;
    }
    case Kind::kReplacement: {
      const bson::Document& replacement = impl_->replacement;
      bson::ValueView new_id = replacement.Get("_id");
      if (!new_id.exists()) {
        result.new_doc = original_id.exists() ? WithIdFirst(replacement, original_id)
                                              : bson::Document::Copy(replacement);
      } else {
        if (!is_insert && original_id.exists() && !BinaryEqual(new_id, original_id)) {
          return ImmutableIdAltered(new_id);
        }
        result.new_doc = bson::Document::Copy(replacement);
      }
      break;
    }
    case Kind::kPipeline: {
      std::vector<bson::Document> input;
      input.push_back(bson::Document::Copy(doc));
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<DocumentStream> output,
                              impl_->pipeline->Run(StreamOfDocuments(std::move(input))));
      bson::Document out;
      QUARRY_ASSIGN_OR_RETURN(bool produced, output->Next(&out));
      if (!produced) out = bson::Document();
      bson::ValueView new_id = out.Get("_id");
      if (!new_id.exists()) {
        result.new_doc = original_id.exists() ? WithIdFirst(out, original_id) : std::move(out);
      } else {
        if (!is_insert && original_id.exists() && !BinaryEqual(new_id, original_id)) {
          return ImmutableIdAltered(new_id);
        }
        result.new_doc = std::move(out);
      }
      break;
    }
  }
  QUARRY_RETURN_IF_ERROR(CheckResult(result.new_doc, may_nest_deeper));
  result.modified = result.new_doc.bytes() != doc.bytes();
  if (impl_->describe && result.modified) {
    result.description = DescribeUpdate(doc, result.new_doc);
  }
  return result;
}

StatusWith<bson::Document> UpdateSpec::BuildUpsertDocument(const Matcher& filter) const {
  QUARRY_ASSIGN_OR_RETURN(std::vector<EqualityCondition> equalities, filter.UpsertEqualities());
  bson::ValueView filter_id;
  for (const EqualityCondition& eq : equalities) {
    if (eq.path == "_id") filter_id = eq.value;
  }
  const bson::ObjectId generated = bson::ObjectId::Generate();
  bson::DocumentBuilder generated_holder;
  generated_holder.AppendObjectId("_id", generated);
  const bson::Document generated_doc = std::move(generated_holder).Finish();
  const bson::ValueView fallback_id = filter_id.exists() ? filter_id : generated_doc.Get("_id");

  if (impl_->kind == Kind::kReplacement) {
    bson::Document doc = WithIdFirst(impl_->replacement, fallback_id);
    QUARRY_RETURN_IF_ERROR(CheckResult(doc));
    return doc;
  }
  // Seed the new document with the filter's equalities, then apply the update as an insert.
  MutableValue seed = MutableValue::NewDocument();
  for (const EqualityCondition& eq : equalities) {
    MutableValue* node = &seed;
    for (const bson::PathComponent& part : bson::PathComponents(eq.path)) {
      if (part.is_last) {
        node->SetField(part.name, MutableValue(Value::Copy(eq.value)));
        break;
      }
      MutableValue* next = node->Find(part.name);
      if (next == nullptr || !next->IsDocument()) {
        next = node->SetField(part.name, MutableValue::NewDocument());
      }
      node = next;
    }
  }
  bson::Document seed_doc = seed.ToDocument();
  QUARRY_ASSIGN_OR_RETURN(UpdateResult applied, Apply(seed_doc, MatchDetails{}, true));
  // The filter's _id equality is part of the new document: the update may not change it.
  bson::ValueView applied_id = applied.new_doc.Get("_id");
  if (filter_id.exists() && (!applied_id.exists() || !BinaryEqual(applied_id, filter_id))) {
    return ImmutableIdAltered(applied_id.exists() ? applied_id : filter_id);
  }
  bson::Document doc = WithIdFirst(applied.new_doc, fallback_id);
  QUARRY_RETURN_IF_ERROR(CheckResult(doc));
  return doc;
}

}  // namespace quarry::query
