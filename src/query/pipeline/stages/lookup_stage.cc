// $lookup (equality form, pipeline form, and both combined) and $unionWith. The foreign
// collection is read once per run through PipelineContext::open_collection and kept in memory;
// a sub-pipeline that starts with a search stage asks PipelineContext::open_search instead.
#include <optional>

#include "bson/compare.h"
#include "query/match/field_path.h"
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

using bson::Type;

StatusWith<std::vector<bson::Document>> ReadCollection(const RunContext& run,
                                                       const OutTarget& target,
                                                       std::string_view stage) {
  if (run.pipeline == nullptr || !run.pipeline->open_collection) {
    return Status(ErrorCode::kNotImplemented,
                  std::string(stage) + " cannot read other collections here");
  }
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<DocumentStream> stream,
                          run.pipeline->open_collection(target.db, target.coll));
  std::vector<bson::Document> docs;
  std::size_t bytes = 0;
  while (true) {
    bson::Document doc;
    QUARRY_ASSIGN_OR_RETURN(bool more, stream->Next(&doc));
    if (!more) break;
    bytes += doc.size();
    if (bytes > run.pipeline->max_memory_bytes) {
      return Status(ErrorCode::kExceededMemoryLimit, std::string(stage) +
                                                         " exceeded the memory limit reading " +
                                                         target.db + "." + target.coll);
    }
    docs.push_back(std::move(doc));
  }
  return docs;
}

// $$SEARCH_META of the {$search: ...} `stage` run on `from`.
StatusWith<Value> SearchMetaOf(const RunContext& run, const OutTarget& from,
                               const bson::Document& stage) {
  if (run.pipeline == nullptr || !run.pipeline->open_search_meta) {
    return Status(ErrorCode::kNotImplemented, "$$SEARCH_META cannot be computed here");
  }
  QUARRY_ASSIGN_OR_RETURN(bson::Document meta,
                          run.pipeline->open_search_meta(from.db, from.coll, stage.view()));
  return Value::FromDocument(std::move(meta));
}

// Values a path reaches for an equality $lookup: array elements, and null for missing.
std::vector<bson::ValueView> LookupValues(bson::DocumentView doc, const FieldPath& path) {
  std::vector<bson::ValueView> values = CollectPathValues(doc, path);
  static const char kNothing[1] = {0};
  for (bson::ValueView& v : values) {
    if (!v.exists()) v = bson::ValueView(Type::kNull, kNothing, 0);
  }
  return values;
}

// The documents of `input` whose `foreign` path holds one of `local`'s values (an equality
// $lookup's condition), each with its metadata.
class EqualityFilter final : public DocumentStream {
 public:
  EqualityFilter(std::unique_ptr<DocumentStream> input, std::vector<bson::ValueView> local,
                 FieldPath foreign, const bson::StringComparator* collator)
      : input_(std::move(input)),
        local_(std::move(local)),
        foreign_(std::move(foreign)),
        collator_(collator) {}

  StatusWith<bool> Next(bson::Document* out) override {
    while (true) {
      QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(out));
      if (!more) return false;
      for (bson::ValueView fv : LookupValues(*out, foreign_)) {
        for (bson::ValueView lv : local_) {
          if (bson::ValuesEqual(fv, lv, collator_)) return true;
        }
      }
    }
  }
  const DocumentMetadata& metadata() const override { return input_->metadata(); }

 private:
  std::unique_ptr<DocumentStream> input_;
  std::vector<bson::ValueView> local_;  // views into the document being looked up
  FieldPath foreign_;
  const bson::StringComparator* collator_;
};

class LookupStage final : public Stage {
 public:
  struct Spec {
    OutTarget from;
    std::optional<FieldPath> local_field;
    std::optional<FieldPath> foreign_field;
    std::string as;
    std::vector<std::pair<VariableId, ExpressionPtr>> let_vars;
    std::optional<Pipeline> pipeline;
    // The sub-pipeline's first stage when it is a search, which then replaces reading `from`
    // (`pipeline` holds the stages after it).
    std::optional<bson::Document> search;
    // $$SEARCH_META of that $search, when the stages after it read it.
    std::optional<VariableId> search_meta_slot;
  };

  LookupStage(bson::ValueView spec, Spec parsed) : Stage(spec), spec_(std::move(parsed)) {}
  std::string_view name() const override { return "$lookup"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const LookupStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run));
  }

 private:
  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const LookupStage> stage, std::unique_ptr<DocumentStream> input,
           const RunContext& run)
        : stage_(std::move(stage)), input_(std::move(input)), run_(run) {}

    StatusWith<bool> Next(bson::Document* out) override {
      const Spec& spec = stage_->spec_;
      QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(out));
      if (!more) return false;
      // Each document is matched against the whole foreign side, which no scan checks anymore.
      if (run_.pipeline != nullptr && run_.pipeline->interrupt != nullptr) {
        QUARRY_RETURN_IF_ERROR(run_.pipeline->interrupt->Check());
      }
      if (spec.search.has_value()) return SetFromSearch(out);
      if (!foreign_.has_value()) {
        QUARRY_ASSIGN_OR_RETURN(foreign_, ReadCollection(run_, spec.from, "$lookup"));
      }
      std::vector<bson::Document> matches;
      if (spec.local_field.has_value()) {
        std::vector<bson::ValueView> local = LookupValues(*out, *spec.local_field);
        for (const bson::Document& candidate : *foreign_) {
          bool match = false;
          for (bson::ValueView fv : LookupValues(candidate, *spec.foreign_field)) {
            for (bson::ValueView lv : local) {
              if (bson::ValuesEqual(fv, lv,
                                    run_.pipeline ? run_.pipeline->collator.get() : nullptr)) {
                match = true;
                break;
              }
            }
            if (match) break;
          }
          if (match) matches.push_back(candidate);
        }
      } else {
        matches = *foreign_;
      }
      if (spec.pipeline.has_value()) {
        QUARRY_ASSIGN_OR_RETURN(matches,
                                RunSubPipeline(StreamOfDocuments(std::move(matches)), *out));
      }
      return SetMatches(matches, out);
    }

    const DocumentMetadata& metadata() const override { return input_->metadata(); }

   private:
    // The search runs again for each document: its results carry their scores as metadata,
    // which the stages after it may read and a kept copy of the documents would lose.
    StatusWith<bool> SetFromSearch(bson::Document* out) {
      const Spec& spec = stage_->spec_;
      if (run_.pipeline == nullptr || !run_.pipeline->open_search) {
        return Status(ErrorCode::kNotImplemented, "$lookup cannot run a search here");
      }
      QUARRY_ASSIGN_OR_RETURN(
          std::unique_ptr<DocumentStream> found,
          run_.pipeline->open_search(spec.from.db, spec.from.coll, spec.search->view()));
      if (spec.local_field.has_value()) {
        found = std::make_unique<EqualityFilter>(std::move(found),
                                                 LookupValues(*out, *spec.local_field),
                                                 *spec.foreign_field, Collator());
      }
      QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> matches,
                              RunSubPipeline(std::move(found), *out));
      return SetMatches(matches, out);
    }

    // The sub-pipeline's results over `input`, its `let` variables evaluated on `looked_up`
    // (and $$SEARCH_META set when it reads it).
    StatusWith<std::vector<bson::Document>> RunSubPipeline(std::unique_ptr<DocumentStream> input,
                                                           const bson::Document& looked_up) {
      const Spec& spec = stage_->spec_;
      EvalContext vars = run_.variables;
      vars.SetRoot(looked_up.view());
      for (const auto& [slot, expr] : spec.let_vars) {
        QUARRY_ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
        vars.SetVariable(slot, v.Owned());
      }
      if (spec.search_meta_slot.has_value()) {
        QUARRY_ASSIGN_OR_RETURN(Value meta, SearchMetaOf(run_, spec.from, *spec.search));
        vars.SetVariable(*spec.search_meta_slot, std::move(meta));
      }
      QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<DocumentStream> results,
                              spec.pipeline->Run(std::move(input), vars));
      std::vector<bson::Document> out;
      while (true) {
        bson::Document doc;
        QUARRY_ASSIGN_OR_RETURN(bool has, results->Next(&doc));
        if (!has) break;
        out.push_back(std::move(doc));
      }
      return out;
    }

    const bson::StringComparator* Collator() const {
      return run_.pipeline != nullptr ? run_.pipeline->collator.get() : nullptr;
    }

    // Sets `as` in `out` to `matches`.
    StatusWith<bool> SetMatches(const std::vector<bson::Document>& matches, bson::Document* out) {
      const Spec& spec = stage_->spec_;
      bson::ArrayBuilder array;
      for (const bson::Document& m : matches) array.AppendDocument(m);
      MutableValue edited = MutableValue::OfDocument(*out);
      SetPath(&edited, spec.as, Value::FromArray(std::move(array).Finish()));
      bson::Document result = edited.ToDocument();
      if (result.size() > 16 * 1024 * 1024) {
        return Status(ErrorCode::kBSONObjectTooLarge,
                      "Total size of documents in " + spec.from.coll +
                          " matching pipeline's $lookup stage exceeds 16793600 bytes");
      }
      *out = std::move(result);
      return true;
    }

    std::shared_ptr<const LookupStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    RunContext run_;
    std::optional<std::vector<bson::Document>> foreign_;
  };

  Spec spec_;
};

bool IsSearchStage(std::string_view name) {
  return name == "$vectorSearch" || name == "$search" || name == "$searchMeta";
}

StatusWith<Pipeline> ParseSubPipeline(std::string_view stage, bson::ValueView pipeline,
                                      StageParseContext& ctx) {
  if (pipeline.type() != Type::kArray) {
    return Status(ErrorCode::kFailedToParse, std::string(stage) +
                                                 " argument 'pipeline' must be an array, is type " +
                                                 std::string(TypeName(pipeline)));
  }
  // Search stages read a collection's search index, which a sub-pipeline's input is not (a
  // first stage that is one is taken apart before this, see SearchSourceOf).
  for (const bson::Element& e : pipeline.Document()) {
    if (e.value.type() != Type::kDocument) continue;
    std::string_view name = e.value.Document().FirstKey();
    if (IsSearchStage(name)) {
      return LocationError(51047, std::string(name) + " is not allowed within a " +
                                      std::string(stage) + "'s sub-pipeline");
    }
  }
  QUARRY_ASSIGN_OR_RETURN(Pipeline parsed,
                          Pipeline::Parse(pipeline.Document(), ctx.pipeline, ctx.expressions));
  for (const auto& s : parsed.stages()) {
    if (s->writes_output()) {
      return LocationError(51047, std::string(s->name()) + " is not allowed within a " +
                                      std::string(stage) + "'s sub-pipeline");
    }
  }
  return parsed;
}

// A $lookup or $unionWith sub-pipeline that starts with a search stage: that stage, which
// replaces reading the collection, and the stages after it.
struct SearchSource {
  bson::Document stage;
  bson::Document rest;  // an array

  // Whether the stage is a $search whose $$SEARCH_META the stages after it name.
  bool RestReadsSearchMeta() const {
    return stage.view().FirstKey() == "$search" && NamesSearchMeta(rest.view());
  }
};

std::optional<SearchSource> SearchSourceOf(bson::ValueView pipeline) {
  if (pipeline.type() != Type::kArray) return std::nullopt;
  auto first = pipeline.Document().begin();
  if (first == pipeline.Document().end() || first->value.type() != Type::kDocument) {
    return std::nullopt;
  }
  const std::string_view name = first->value.Document().FirstKey();
  if (name != "$search" && name != "$searchMeta" && name != "$vectorSearch") return std::nullopt;
  bson::ArrayBuilder rest;
  for (auto it = std::next(first); it != pipeline.Document().end(); ++it) rest.Append(it->value);
  return SearchSource{bson::Document::Copy(first->value.Document()), std::move(rest).Finish()};
}

class UnionWithStage final : public Stage {
 public:
  UnionWithStage(bson::ValueView spec, OutTarget coll, std::optional<Pipeline> pipeline,
                 std::optional<bson::Document> search, std::optional<VariableId> search_meta_slot)
      : Stage(spec),
        coll_(std::move(coll)),
        pipeline_(std::move(pipeline)),
        search_(std::move(search)),
        search_meta_slot_(search_meta_slot) {}
  std::string_view name() const override { return "$unionWith"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const UnionWithStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run));
  }

 private:
  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const UnionWithStage> stage, std::unique_ptr<DocumentStream> input,
           const RunContext& run)
        : stage_(std::move(stage)), input_(std::move(input)), run_(run) {}

    StatusWith<bool> Next(bson::Document* out) override {
      if (input_ != nullptr) {
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(out));
        if (more) return true;
        input_.reset();
        QUARRY_ASSIGN_OR_RETURN(other_, OpenOther());
        if (stage_->pipeline_.has_value()) {
          EvalContext vars = run_.variables;
          if (stage_->search_meta_slot_.has_value()) {
            QUARRY_ASSIGN_OR_RETURN(Value meta,
                                    SearchMetaOf(run_, stage_->coll_, *stage_->search_));
            vars.SetVariable(*stage_->search_meta_slot_, std::move(meta));
          }
          QUARRY_ASSIGN_OR_RETURN(other_, stage_->pipeline_->Run(std::move(other_), vars));
        }
      }
      return other_->Next(out);
    }

   private:
    StatusWith<std::unique_ptr<DocumentStream>> OpenOther() const {
      if (!stage_->search_.has_value()) {
        QUARRY_ASSIGN_OR_RETURN(std::vector<bson::Document> docs,
                                ReadCollection(run_, stage_->coll_, "$unionWith"));
        return StreamOfDocuments(std::move(docs));
      }
      if (run_.pipeline == nullptr || !run_.pipeline->open_search) {
        return Status(ErrorCode::kNotImplemented, "$unionWith cannot run a search here");
      }
      return run_.pipeline->open_search(stage_->coll_.db, stage_->coll_.coll,
                                        stage_->search_->view());
    }

    std::shared_ptr<const UnionWithStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    std::unique_ptr<DocumentStream> other_;
    RunContext run_;
  };

  OutTarget coll_;
  std::optional<Pipeline> pipeline_;
  std::optional<bson::Document> search_;        // the sub-pipeline's first stage, when a search
  std::optional<VariableId> search_meta_slot_;  // its $$SEARCH_META, when the stages read it
};

}  // namespace

StatusWith<StageList> ParseLookupStage(bson::ValueView spec, StageParseContext& ctx) {
  if (spec.type() != Type::kDocument) {
    return Status(ErrorCode::kFailedToParse, "the $lookup specification must be an Object");
  }
  LookupStage::Spec parsed;
  bson::ValueView from, local, foreign, as, let, pipeline;
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "from") {
      from = e.value;
    } else if (e.key == "localField") {
      local = e.value;
    } else if (e.key == "foreignField") {
      foreign = e.value;
    } else if (e.key == "as") {
      as = e.value;
    } else if (e.key == "let") {
      let = e.value;
    } else if (e.key == "pipeline") {
      pipeline = e.value;
    } else {
      return Status(ErrorCode::kFailedToParse,
                    "unknown argument to $lookup: " + std::string(e.key));
    }
  }
  auto require_string = [](std::string_view name, bson::ValueView v) -> Status {
    if (v.exists() && v.type() != Type::kString) {
      return Status(ErrorCode::kFailedToParse, "$lookup argument '" + std::string(name) +
                                                   "' must be a string, is type " +
                                                   std::string(TypeName(v)));
    }
    return Status::OK();
  };
  QUARRY_RETURN_IF_ERROR(require_string("localField", local));
  QUARRY_RETURN_IF_ERROR(require_string("foreignField", foreign));
  QUARRY_RETURN_IF_ERROR(require_string("as", as));
  if (!as.exists())
    return Status(ErrorCode::kFailedToParse, "must specify 'as' field for a $lookup");
  parsed.as = std::string(as.String());
  QUARRY_RETURN_IF_ERROR(FieldPath::Parse(parsed.as));
  if (parsed.as[0] == '$') {
    return LocationError(16410, "FieldPath field names may not start with '$'.");
  }
  if (!from.exists()) {
    return Status(ErrorCode::kFailedToParse,
                  "missing 'from' option to $lookup stage specification: " + spec.ToJson());
  }
  QUARRY_ASSIGN_OR_RETURN(parsed.from, ParseNamespaceSpec("$lookup.from", from, ctx.pipeline->db));
  if (local.exists() != foreign.exists()) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup requires both or neither of 'localField' and 'foreignField' to be "
                  "specified");
  }
  if (!local.exists() && !pipeline.exists()) {
    return Status(ErrorCode::kFailedToParse,
                  "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to "
                  "be specified");
  }
  if (local.exists()) {
    QUARRY_ASSIGN_OR_RETURN(FieldPath local_path, FieldPath::Parse(local.String()));
    QUARRY_ASSIGN_OR_RETURN(FieldPath foreign_path, FieldPath::Parse(foreign.String()));
    parsed.local_field = std::move(local_path);
    parsed.foreign_field = std::move(foreign_path);
  }
  if (let.exists() && let.type() != Type::kDocument) {
    return Status(ErrorCode::kFailedToParse, "$lookup argument 'let' must be an object, is type " +
                                                 std::string(TypeName(let)));
  }
  if (pipeline.exists()) {
    std::vector<std::pair<std::string, ExpressionPtr>> let_exprs;
    if (let.exists()) {
      for (const bson::Element& e : let.Document()) {
        QUARRY_ASSIGN_OR_RETURN(ExpressionPtr expr, Expression::Parse(e.value, *ctx.expressions));
        let_exprs.emplace_back(std::string(e.key), std::move(expr));
      }
    }
    ctx.expressions->PushScope();
    for (auto& [name, expr] : let_exprs) {
      StatusWith<VariableId> slot = ctx.expressions->DefineVariable(name);
      if (!slot.ok()) {
        ctx.expressions->PopScope();
        return slot.status();
      }
      parsed.let_vars.emplace_back(slot.value(), std::move(expr));
    }
    // Atlas runs $search and $searchMeta in a $lookup, not $vectorSearch.
    std::optional<SearchSource> source = SearchSourceOf(pipeline);
    if (source.has_value() && source->stage.view().FirstKey() == "$vectorSearch") source.reset();
    if (source.has_value() && source->RestReadsSearchMeta()) {
      parsed.search_meta_slot = ctx.expressions->DefineSearchMetaSlot();
    }
    StatusWith<Pipeline> sub =
        source.has_value()
            ? ParseSubPipeline("$lookup",
                               bson::ValueView(Type::kArray, source->rest.view().bytes().data(),
                                               source->rest.view().bytes().size()),
                               ctx)
            : ParseSubPipeline("$lookup", pipeline, ctx);
    ctx.expressions->PopScope();
    if (source.has_value()) parsed.search = std::move(source->stage);
    if (!sub.ok()) return sub.status();
    parsed.pipeline = std::move(sub).value();
  }
  return StageList{std::make_shared<LookupStage>(spec, std::move(parsed))};
}

StatusWith<StageList> ParseUnionWithStage(bson::ValueView spec, StageParseContext& ctx) {
  OutTarget coll;
  std::optional<Pipeline> pipeline;
  std::optional<bson::Document> search;
  std::optional<VariableId> search_meta_slot;
  if (spec.type() == Type::kString) {
    coll.db = ctx.pipeline->db;
    coll.coll = std::string(spec.String());
  } else if (spec.type() == Type::kDocument) {
    bson::ValueView coll_spec, pipeline_spec;
    for (const bson::Element& e : spec.Document()) {
      if (e.key == "coll") {
        coll_spec = e.value;
      } else if (e.key == "pipeline") {
        pipeline_spec = e.value;
      } else {
        return Status(ErrorCode::kLocation40415,
                      "BSON field '$unionWith." + std::string(e.key) + "' is an unknown field.");
      }
    }
    if (!coll_spec.exists() || coll_spec.type() != Type::kString) {
      return Status(ErrorCode::kFailedToParse, "$unionWith requires a 'coll' string");
    }
    coll.db = ctx.pipeline->db;
    coll.coll = std::string(coll_spec.String());
    if (std::optional<SearchSource> source = SearchSourceOf(pipeline_spec)) {
      ctx.expressions->PushScope();
      if (source->RestReadsSearchMeta()) {
        search_meta_slot = ctx.expressions->DefineSearchMetaSlot();
      }
      search = std::move(source->stage);
      StatusWith<Pipeline> parsed =
          ParseSubPipeline("$unionWith",
                           bson::ValueView(Type::kArray, source->rest.view().bytes().data(),
                                           source->rest.view().bytes().size()),
                           ctx);
      ctx.expressions->PopScope();
      if (!parsed.ok()) return parsed.status();
      pipeline = std::move(parsed).value();
    } else if (pipeline_spec.exists()) {
      QUARRY_ASSIGN_OR_RETURN(Pipeline parsed, ParseSubPipeline("$unionWith", pipeline_spec, ctx));
      pipeline = std::move(parsed);
    }
  } else {
    return Status(ErrorCode::kFailedToParse,
                  "the $unionWith stage specification must be an object or string, but found " +
                      std::string(TypeName(spec)));
  }
  return StageList{std::make_shared<UnionWithStage>(spec, std::move(coll), std::move(pipeline),
                                                    std::move(search), search_meta_slot)};
}

}  // namespace quarry::query::stages
