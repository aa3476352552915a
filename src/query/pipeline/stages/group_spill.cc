#include <algorithm>

#include "bson/builder.h"
#include "query/pipeline/stages/group_spill_internal.h"

namespace quarry::query::stages {
namespace {

// A spilled group: {k: <canonical key as binary>, id: <key>, partial: [<state>, ...]}.
constexpr std::string_view kCanonicalField = "k";
constexpr std::string_view kKeyField = "id";
constexpr std::string_view kPartialField = "partial";

Status CorruptRun() {
  return Status(ErrorCode::kOperationFailed, "spilling to disk: a $group run is corrupt");
}

Status AppendGroup(const GroupToSpill& group, SpillWriter* writer) {
  bson::DocumentBuilder b;
  b.AppendBinary(kCanonicalField, 0, group.canonical_key);
  group.key->AppendTo(kKeyField, &b);
  b.OpenArray(kPartialField);
  std::size_t position = 0;
  for (const std::unique_ptr<Accumulator>& accumulator : *group.accumulators) {
    accumulator->PartialState().AppendTo(std::to_string(position++), &b);
  }
  b.Close();
  return writer->Append(std::move(b).Finish().view());
}

}  // namespace

StatusWith<SpillRun> WriteGroupRun(const std::string& dir, std::vector<GroupToSpill> groups) {
  std::sort(groups.begin(), groups.end(), [](const GroupToSpill& a, const GroupToSpill& b) {
    return a.canonical_key < b.canonical_key;
  });
  QUARRY_ASSIGN_OR_RETURN(SpillWriter writer, SpillWriter::Create(dir));
  for (const GroupToSpill& group : groups) QUARRY_RETURN_IF_ERROR(AppendGroup(group, &writer));
  return std::move(writer).Finish();
}

StatusWith<SpillRun> GroupRunMerge::WriteMerged(const std::string& dir,
                                                const FreshAccumulators& fresh) {
  QUARRY_ASSIGN_OR_RETURN(SpillWriter writer, SpillWriter::Create(dir));
  Value key;
  std::vector<std::unique_ptr<Accumulator>> accumulators;
  std::string canonical_key;
  while (true) {
    QUARRY_ASSIGN_OR_RETURN(bool more, Next(fresh, &key, &accumulators, &canonical_key));
    if (!more) break;
    QUARRY_RETURN_IF_ERROR(AppendGroup(GroupToSpill{canonical_key, &key, &accumulators}, &writer));
  }
  return std::move(writer).Finish();
}

struct GroupRunMerge::Source {
  explicit Source(SpillReader r) : reader(std::move(r)) {}
  SpillReader reader;
  // The run's next group, and its canonical key, which points into it.
  bson::Document current;
  std::string_view canonical_key;
};

GroupRunMerge::~GroupRunMerge() = default;

StatusWith<std::unique_ptr<GroupRunMerge>> GroupRunMerge::Open(const std::vector<SpillRun>& runs) {
  std::unique_ptr<GroupRunMerge> merge(new GroupRunMerge());
  for (const SpillRun& run : runs) {
    QUARRY_ASSIGN_OR_RETURN(SpillReader reader, SpillReader::Open(run));
    merge->sources_.push_back(std::make_unique<Source>(std::move(reader)));
  }
  for (std::size_t source_idx = 0; source_idx < merge->sources_.size(); ++source_idx) {
    QUARRY_ASSIGN_OR_RETURN(bool has, merge->Advance(*merge->sources_[source_idx]));
    if (has) merge->heap_.push_back(source_idx);
  }
  GroupRunMerge* self = merge.get();
  std::make_heap(merge->heap_.begin(), merge->heap_.end(),
                 [self](std::size_t a, std::size_t b) { return self->After(a, b); });
  return merge;
}

bool GroupRunMerge::After(std::size_t a, std::size_t b) const {
  const int c = sources_[a]->canonical_key.compare(sources_[b]->canonical_key);
  return c != 0 ? c > 0 : a > b;
}

StatusWith<bool> GroupRunMerge::Advance(Source& source) {
  QUARRY_ASSIGN_OR_RETURN(bool has, source.reader.Next(&source.current));
  if (!has) return false;
  bson::ValueView canonical = source.current.Get(kCanonicalField);
  if (canonical.type() != bson::Type::kBinary) return CorruptRun();
  source.canonical_key = canonical.Binary().data;
  return true;
}

StatusWith<bool> GroupRunMerge::Next(const FreshAccumulators& fresh, Value* key,
                                     std::vector<std::unique_ptr<Accumulator>>* accumulators,
                                     std::string* canonical_key_out) {
  if (heap_.empty()) return false;
  auto after = [this](std::size_t a, std::size_t b) { return After(a, b); };
  std::string canonical_key(sources_[heap_.front()]->canonical_key);
  *accumulators = fresh();
  bool first = true;
  // Equal keys leave the heap earliest run first, as the tie-break orders them.
  while (!heap_.empty() && sources_[heap_.front()]->canonical_key == canonical_key) {
    std::pop_heap(heap_.begin(), heap_.end(), after);
    const std::size_t source_idx = heap_.back();
    heap_.pop_back();
    Source& source = *sources_[source_idx];
    const Value group = Value::FromDocument(std::move(source.current));
    if (first) {
      *key = Value::Copy(group.view().Document().Get(kKeyField));
      first = false;
    }
    bson::ValueView partials = group.view().Document().Get(kPartialField);
    if (partials.type() != bson::Type::kArray) return CorruptRun();
    std::size_t field_idx = 0;
    for (const bson::Element& e : partials.Document()) {
      if (field_idx >= accumulators->size()) return CorruptRun();
      QUARRY_RETURN_IF_ERROR((*accumulators)[field_idx++]->MergePartialState(group.Child(e.value)));
    }
    if (field_idx != accumulators->size()) return CorruptRun();
    QUARRY_ASSIGN_OR_RETURN(bool has, Advance(source));
    if (has) {
      heap_.push_back(source_idx);
      std::push_heap(heap_.begin(), heap_.end(), after);
    }
  }
  if (canonical_key_out != nullptr) *canonical_key_out = std::move(canonical_key);
  return true;
}

}  // namespace quarry::query::stages
