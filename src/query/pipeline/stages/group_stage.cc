// $group (and $sortByCount, which is a $group then a $sort): groups documents by the value of
// the _id expression, numbers of different types grouping together when equal (1, 1.0, 1L).
// Groups come out in the order their keys were first met; past the memory limit under
// allowDiskUse they spill (group_spill_internal.h) and come out in canonical key order, which
// mongod's $group does not promise either.
#include <unordered_map>

#include "query/pipeline/accumulator.h"
#include "query/pipeline/stages/group_spill_internal.h"
#include "query/pipeline/stages/stage_internal.h"
#include "query/sort/sort.h"
#include "query/spill/spill_stats.h"
#include "query/value/location_error.h"
#include "query/value/value_arithmetic.h"
#include "query/value/value_decimal.h"

namespace quarry::query::stages {
namespace {

using bson::Type;

// Runs a spilling $group keeps before it merges them into one.
constexpr std::size_t kMaxGroupRuns = 64;

// A byte string equal for values $group considers equal: numbers by value, documents and arrays
// element by element.
// Strings under a collation become their comparison keys, so strings the collation finds equal
// group together.
void AppendCanonicalKey(bson::ValueView v, const bson::StringComparator* collator,
                        std::string* out) {
  switch (v.type()) {
    case Type::kInt32:
    case Type::kInt64:
    case Type::kDouble:
    case Type::kDecimal128: {
      out->push_back('n');
      std::int64_t n = 0;
      if (ToInt64Exact(v, &n)) {
        out->push_back('i');
        out->append(std::to_string(n));
      } else {
        double d = v.type() == Type::kDecimal128 ? DecimalToDouble(v.Dec128()) : v.AsDouble();
        out->push_back('d');
        if (d != d) {
          out->append("nan");
        } else {
          out->append(reinterpret_cast<const char*>(&d), sizeof(d));
        }
      }
      break;
    }
    case Type::kDocument:
    case Type::kArray: {
      out->push_back(v.type() == Type::kDocument ? '{' : '[');
      for (const bson::Element& e : v.Document()) {
        if (v.type() == Type::kDocument) {
          out->append(std::to_string(e.key.size()));
          out->push_back(':');
          out->append(e.key);
        }
        AppendCanonicalKey(e.value, collator, out);
      }
      out->push_back(v.type() == Type::kDocument ? '}' : ']');
      break;
    }
    case Type::kString:
    case Type::kSymbol:
      if (collator != nullptr) {
        std::string key;
        collator->AppendComparisonKey(v.String(), &key);
        out->push_back('c');
        out->append(std::to_string(key.size()));
        out->push_back(':');
        out->append(key);
        break;
      }
      out->push_back('s');
      out->append(std::to_string(v.String().size()));
      out->push_back(':');
      out->append(v.String());
      break;
    case Type::kEod:
    case Type::kNull:
      out->push_back('z');
      break;
    default:
      out->push_back(static_cast<char>(v.type()));
      out->append(std::to_string(v.size()));
      out->push_back(':');
      out->append(v.data(), v.size());
      break;
  }
}

class GroupStage final : public Stage {
 public:
  GroupStage(bson::ValueView spec, ExpressionPtr id, std::vector<AccumulationStatement> fields,
             std::shared_ptr<const bson::StringComparator> collator)
      : Stage(spec),
        id_(std::move(id)),
        fields_(std::move(fields)),
        collator_(std::move(collator)) {}
  std::string_view name() const override { return "$group"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const GroupStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run));
  }

 private:
  struct Group {
    Value key;  // the first met
    std::string canonical_key;
    std::vector<std::unique_ptr<Accumulator>> accumulators;
  };

  std::vector<std::unique_ptr<Accumulator>> FreshAccumulators() const {
    std::vector<std::unique_ptr<Accumulator>> accumulators;
    accumulators.reserve(fields_.size());
    for (const AccumulationStatement& s : fields_) accumulators.push_back(s.Create());
    return accumulators;
  }

  bson::Document Output(const Value& key,
                        const std::vector<std::unique_ptr<Accumulator>>& accumulators) const {
    bson::DocumentBuilder b;
    b.Append("_id", key.view());
    for (std::size_t field_idx = 0; field_idx < fields_.size(); ++field_idx) {
      Value v = accumulators[field_idx]->Finish();
      v.AppendTo(fields_[field_idx].field(), &b);
    }
    return std::move(b).Finish();
  }

  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const GroupStage> stage, std::unique_ptr<DocumentStream> input,
           const RunContext& run)
        : stage_(std::move(stage)),
          input_(std::move(input)),
          ctx_(run.variables),
          pipeline_(run.pipeline) {}

    StatusWith<bool> Next(bson::Document* out) override {
      if (!loaded_) {
        loaded_ = true;
        Status loaded = Load();
        if (!loaded.ok()) {
          Release();
          return loaded;
        }
      }
      if (merge_ != nullptr) {
        Value key;
        std::vector<std::unique_ptr<Accumulator>> accumulators;
        StatusWith<bool> more =
            merge_->Next([this] { return stage_->FreshAccumulators(); }, &key, &accumulators);
        if (!more.ok() || !more.value()) {
          Release();  // the runs go as soon as the last group is out
          return more;
        }
        *out = stage_->Output(key, accumulators);
        return true;
      }
      if (next_ >= groups_.size()) return false;
      Group& group = groups_[next_++];
      *out = stage_->Output(group.key, group.accumulators);
      group.accumulators.clear();
      return true;
    }

    void AppendExecutionStats(bson::DocumentBuilder* out) const override {
      out->AppendBool("usedDisk", spilled_.used_disk());
      out->AppendInt64("spills", spilled_.spills);
      out->AppendInt64("spilledDataStorageSize", spilled_.spilled_bytes);
      out->AppendInt64("spilledRecords", spilled_.spilled_records);
    }

   private:
    Status Load() {
      const std::size_t limit = pipeline_ != nullptr ? pipeline_->max_group_memory_bytes : SIZE_MAX;
      const bool allow_disk = pipeline_ != nullptr && pipeline_->allow_disk_use;
      std::size_t bytes = 0;
      std::string key_bytes;
      while (true) {
        bson::Document doc;
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
        if (!more) break;
        ctx_.SetRoot(doc.view());
        ctx_.set_metadata(&input_->metadata());
        QUARRY_ASSIGN_OR_RETURN(Value key, stage_->id_->Evaluate(ctx_));
        if (key.missing()) key = Value::Null();
        key_bytes.clear();
        AppendCanonicalKey(key.view(), stage_->collator_.get(), &key_bytes);
        auto [it, inserted] = index_.emplace(key_bytes, groups_.size());
        if (inserted) {
          groups_.push_back(Group{key.Owned(), key_bytes, stage_->FreshAccumulators()});
          bytes += key_bytes.size() * 2 + 64;
        }
        Group& group = groups_[it->second];
        for (std::size_t field_idx = 0; field_idx < stage_->fields_.size(); ++field_idx) {
          Accumulator& acc = *group.accumulators[field_idx];
          QUARRY_ASSIGN_OR_RETURN(Value v, stage_->fields_[field_idx].expression().Evaluate(ctx_));
          const std::size_t before = acc.memory_bytes();
          QUARRY_RETURN_IF_ERROR(acc.Process(v));
          const std::size_t after = acc.memory_bytes();
          bytes =
              after >= before ? bytes + (after - before) : bytes - std::min(bytes, before - after);
        }
        if (bytes > limit) {
          if (!allow_disk) {
            return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                          "Exceeded memory limit for $group, but didn't allow external sort. "
                          "Pass allowDiskUse:true to opt in.");
          }
          QUARRY_RETURN_IF_ERROR(Spill());
          bytes = 0;
        }
      }
      if (runs_.empty()) return Status::OK();
      // The groups still in memory become the last run, so one merge answers for all.
      if (!groups_.empty()) QUARRY_RETURN_IF_ERROR(Spill());
      QUARRY_ASSIGN_OR_RETURN(merge_, GroupRunMerge::Open(runs_));
      return Status::OK();
    }

    // Writes the groups in memory as a run and starts again with none.
    Status Spill() {
      const std::string& dir = pipeline_->spill_dir;
      if (dir.empty()) {
        return Status(ErrorCode::kExceededMemoryLimit,
                      "Exceeded memory limit for $group, and this pipeline has no directory to "
                      "spill to.");
      }
      for (const AccumulationStatement& s : stage_->fields_) {
        if (!s.Create()->mergeable()) {
          return Status(ErrorCode::kExceededMemoryLimit,
                        "Exceeded memory limit for $group, and its " + s.op() +
                            " accumulator cannot spill to disk.");
        }
      }
      std::vector<GroupToSpill> spilling;
      spilling.reserve(groups_.size());
      for (const Group& group : groups_) {
        spilling.push_back(GroupToSpill{group.canonical_key, &group.key, &group.accumulators});
      }
      QUARRY_ASSIGN_OR_RETURN(SpillRun run, WriteGroupRun(dir, std::move(spilling)));
      SpillStats added;
      added.spills = 1;
      added.spilled_bytes = static_cast<std::int64_t>(run.bytes());
      added.spilled_records = static_cast<std::int64_t>(run.documents());
      spilled_.spills += added.spills;
      spilled_.spilled_bytes += added.spilled_bytes;
      spilled_.spilled_records += added.spilled_records;
      GroupSpillCounters().Add(added);
      runs_.push_back(std::move(run));
      groups_.clear();
      index_.clear();
      if (runs_.size() >= kMaxGroupRuns) {
        // Runs open at once in the merge stay bounded: these become one, in key order, so the
        // runs after it still hold later documents.
        QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<GroupRunMerge> merge, GroupRunMerge::Open(runs_));
        QUARRY_ASSIGN_OR_RETURN(SpillRun merged, merge->WriteMerged(dir, [this] {
          return stage_->FreshAccumulators();
        }));
        merge.reset();
        spilled_.spilled_bytes += static_cast<std::int64_t>(merged.bytes());
        runs_.clear();
        runs_.push_back(std::move(merged));
      }
      return Status::OK();
    }

    // Drops every group and removes the runs.
    void Release() {
      merge_.reset();
      runs_.clear();
      groups_.clear();
      index_.clear();
      next_ = 0;
    }

    std::shared_ptr<const GroupStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    EvalContext ctx_;
    std::shared_ptr<const PipelineContext> pipeline_;
    std::vector<Group> groups_;
    std::unordered_map<std::string, std::size_t> index_;  // canonical key -> groups_ position
    std::size_t next_ = 0;
    std::vector<SpillRun> runs_;
    std::unique_ptr<GroupRunMerge> merge_;  // once runs were written, what Next reads
    SpillStats spilled_;
    bool loaded_ = false;
  };

  ExpressionPtr id_;
  std::vector<AccumulationStatement> fields_;
  std::shared_ptr<const bson::StringComparator> collator_;  // of the group keys
};

StatusWith<StagePtr> MakeGroup(bson::ValueView spec, StageParseContext& ctx) {
  if (spec.type() != Type::kDocument) {
    return LocationError(15947, "a group's fields must be specified in an object");
  }
  ExpressionPtr id;
  std::vector<AccumulationStatement> fields;
  for (const bson::Element& e : spec.Document()) {
    if (e.key == "_id") {
      QUARRY_ASSIGN_OR_RETURN(id, Expression::Parse(e.value, *ctx.expressions));
      continue;
    }
    if (!e.key.empty() && e.key[0] == '$') {
      return LocationError(
          40236, "The field name '" + std::string(e.key) + "' cannot be an operator name");
    }
    if (e.key.find('.') != std::string_view::npos) {
      return LocationError(40235, "The field name '" + std::string(e.key) + "' cannot contain '.'");
    }
    QUARRY_ASSIGN_OR_RETURN(AccumulationStatement statement,
                            AccumulationStatement::Parse(e.key, e.value, *ctx.expressions));
    fields.push_back(std::move(statement));
  }
  if (id == nullptr) return LocationError(15955, "a group specification must include an _id");
  return StagePtr(std::make_shared<GroupStage>(spec, std::move(id), std::move(fields),
                                               ctx.expressions->shared_collator()));
}

}  // namespace

StatusWith<StageList> ParseGroupStage(bson::ValueView spec, StageParseContext& ctx) {
  QUARRY_ASSIGN_OR_RETURN(StagePtr group, MakeGroup(spec, ctx));
  return StageList{std::move(group)};
}

StatusWith<StageList> ParseSortByCountStage(bson::ValueView spec, StageParseContext& ctx) {
  const bool is_path =
      spec.type() == Type::kString && !spec.String().empty() && spec.String()[0] == '$';
  const bool is_operator = spec.type() == Type::kDocument && !spec.Document().empty() &&
                           spec.Document().FirstKey()[0] == '$';
  if (!is_path && !is_operator) {
    return LocationError(40147,
                         "the sortByCount field must be defined as a $-prefixed path or an "
                         "expression");
  }
  bson::DocumentBuilder group;
  group.Append("_id", spec);
  group.OpenDocument("count");
  group.AppendInt32("$sum", 1);
  group.Close();
  bson::Document group_spec = std::move(group).Finish();
  QUARRY_ASSIGN_OR_RETURN(
      StagePtr group_stage,
      MakeGroup(bson::ValueView(Type::kDocument, group_spec.view().data(), group_spec.size()),
                ctx));
  bson::DocumentBuilder sort;
  sort.AppendInt32("count", -1);
  bson::Document sort_spec = std::move(sort).Finish();
  QUARRY_ASSIGN_OR_RETURN(
      StageList sort_stage,
      ParseSortStage(bson::ValueView(Type::kDocument, sort_spec.view().data(), sort_spec.size()),
                     ctx));
  return StageList{std::move(group_stage), std::move(sort_stage.front())};
}

}  // namespace quarry::query::stages
