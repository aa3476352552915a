#include "query/sort/external_sorter.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "base/check.h"

namespace quarry::query {
namespace {

// Bookkeeping bytes charged per buffered document on top of its BSON, so that many tiny
// documents still count against the memory limit.
constexpr std::size_t kItemOverhead = 64;
// Runs open at once in a merge: past it, the runs are merged into one first, so a sort of far
// more data than the limit never holds more than this many files and read buffers.
constexpr std::size_t kMaxRuns = 64;

}  // namespace

Status SortMemoryExceeded(std::size_t limit_bytes) {
  return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                "Sort exceeded memory limit of " + std::to_string(limit_bytes) +
                    " bytes, but did not opt in to external sorting. Aborting operation. Pass "
                    "allowDiskUse:true to opt in.");
}

// Merges sorted sources (runs on disk, then the sorted rest of the buffer) into one order: the
// smallest key first, and among equal keys the earlier source, whose documents were added
// first, which keeps the sort stable.
class ExternalSorter::Merge {
 public:
  Merge(const SortSpec& spec, std::size_t limit) : spec_(spec), limit_(limit) {}

  Status AddRun(const SpillRun& run) {
    QUARRY_ASSIGN_OR_RETURN(SpillReader reader, SpillReader::Open(run));
    auto source = std::make_unique<Source>();
    source->reader.emplace(std::move(reader));
    sources_.push_back(std::move(source));
    return Status::OK();
  }

  void AddMemory(std::vector<Item> items) {
    auto source = std::make_unique<Source>();
    source->memory = std::move(items);
    sources_.push_back(std::move(source));
  }

  // Reads the first item of every source.
  Status Start() {
    for (std::size_t source_idx = 0; source_idx < sources_.size(); ++source_idx) {
      QUARRY_ASSIGN_OR_RETURN(bool has, Advance(*sources_[source_idx]));
      if (has) heap_.push_back(source_idx);
    }
    std::make_heap(heap_.begin(), heap_.end(), After());
    return Status::OK();
  }

  StatusWith<bool> Next(Item* out) {
    if (heap_.empty() || (limit_ > 0 && returned_ >= limit_)) return false;
    std::pop_heap(heap_.begin(), heap_.end(), After());
    const std::size_t source_idx = heap_.back();
    heap_.pop_back();
    Source& source = *sources_[source_idx];
    *out = std::move(source.current);
    ++returned_;
    QUARRY_ASSIGN_OR_RETURN(bool has, Advance(source));
    if (has) {
      heap_.push_back(source_idx);
      std::push_heap(heap_.begin(), heap_.end(), After());
    }
    return true;
  }

 private:
  struct Source {
    std::optional<SpillReader> reader;
    std::vector<Item> memory;
    std::size_t memory_next = 0;
    // The source's smallest item not yet returned, and its key, which points into it: a
    // Source never moves (it is held by pointer), so the key stays valid.
    Item current;
    SortKey key;
  };

  // A heap comparison that puts the source with the next item on top.
  struct AfterCompare {
    const Merge* merge;
    bool operator()(std::size_t a, std::size_t b) const {
      const int c = merge->spec_.CompareKeys(merge->sources_[a]->key, merge->sources_[b]->key);
      return c != 0 ? c > 0 : a > b;
    }
  };
  AfterCompare After() const { return AfterCompare{this}; }

  StatusWith<bool> Advance(Source& source) {
    source.key.clear();
    if (source.reader.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(bool has, source.reader->Next(&source.current.doc));
      if (!has) return false;
      QUARRY_ASSIGN_OR_RETURN(bool has_extra, source.reader->Next(&source.current.extra));
      if (!has_extra) {
        return Status(ErrorCode::kOperationFailed, "spilling to disk: a sort run was cut short");
      }
    } else {
      if (source.memory_next >= source.memory.size()) return false;
      source.current = std::move(source.memory[source.memory_next++]);
    }
    source.key = spec_.MakeKey(source.current.doc.view(), source.current.extra.view());
    return true;
  }

  const SortSpec& spec_;
  std::size_t limit_;
  std::vector<std::unique_ptr<Source>> sources_;
  std::vector<std::size_t> heap_;
  std::size_t returned_ = 0;
};

ExternalSorter::ExternalSorter(SortSpec spec, SorterOptions options)
    : spec_(std::move(spec)), options_(std::move(options)) {}

ExternalSorter::~ExternalSorter() = default;

Status ExternalSorter::Add(bson::Document doc, bson::Document extra) {
  bytes_sorted_ += doc.size();
  buffer_bytes_ += doc.size() + extra.size() + kItemOverhead;
  buffer_.push_back(Item{std::move(doc), std::move(extra)});
  // With a limit only the first `limit` in order can be returned: keep at most about twice
  // that many, pruning as we go.
  const std::size_t limit = options_.limit;
  if (limit > 0 && buffer_.size() >= 2 * limit + 16) SortBuffer();
  if (buffer_bytes_ <= options_.max_memory_bytes) return Status::OK();
  if (limit > 0) {
    SortBuffer();
    if (buffer_bytes_ <= options_.max_memory_bytes) return Status::OK();
  }
  if (options_.spill_dir.empty()) return SortMemoryExceeded(options_.max_memory_bytes);
  return Spill();
}

void ExternalSorter::SortBuffer() {
  std::vector<SortKey> keys;
  keys.reserve(buffer_.size());
  for (const Item& item : buffer_)
    keys.push_back(spec_.MakeKey(item.doc.view(), item.extra.view()));
  std::vector<std::size_t> order(buffer_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return spec_.CompareKeys(keys[a], keys[b]) < 0;
  });
  const std::size_t keep =
      options_.limit > 0 ? std::min(options_.limit, order.size()) : order.size();
  std::vector<Item> sorted;
  sorted.reserve(keep);
  buffer_bytes_ = 0;
  for (std::size_t rank = 0; rank < keep; ++rank) {
    Item& item = buffer_[order[rank]];
    buffer_bytes_ += item.doc.size() + item.extra.size() + kItemOverhead;
    sorted.push_back(std::move(item));
  }
  buffer_ = std::move(sorted);
}

Status ExternalSorter::WriteRun(Merge* source) {
  QUARRY_ASSIGN_OR_RETURN(SpillWriter writer, SpillWriter::Create(options_.spill_dir));
  Item item;
  while (true) {
    QUARRY_ASSIGN_OR_RETURN(bool more, source->Next(&item));
    if (!more) break;
    QUARRY_RETURN_IF_ERROR(writer.Append(item.doc.view()));
    QUARRY_RETURN_IF_ERROR(writer.Append(item.extra.view()));
  }
  QUARRY_ASSIGN_OR_RETURN(SpillRun run, std::move(writer).Finish());
  SpillStats added;
  added.spilled_bytes = static_cast<std::int64_t>(run.bytes());
  stats_.spilled_bytes += added.spilled_bytes;
  if (options_.counters != nullptr) options_.counters->Add(added);
  runs_.push_back(std::move(run));
  return Status::OK();
}

Status ExternalSorter::Spill() {
  SortBuffer();
  const auto records = static_cast<std::int64_t>(buffer_.size());
  Merge buffered(spec_, options_.limit);
  buffered.AddMemory(std::move(buffer_));
  buffer_.clear();
  buffer_bytes_ = 0;
  QUARRY_RETURN_IF_ERROR(buffered.Start());
  QUARRY_RETURN_IF_ERROR(WriteRun(&buffered));
  SpillStats added;
  added.spills = 1;
  added.spilled_records = records;
  stats_.spills += added.spills;
  stats_.spilled_records += added.spilled_records;
  if (options_.counters != nullptr) options_.counters->Add(added);
  if (runs_.size() >= kMaxRuns) return MergeRuns();
  return Status::OK();
}

// Runs hold consecutive stretches of the input, earliest first, so the merged run keeps the
// order of equal keys.
Status ExternalSorter::MergeRuns() {
  std::vector<SpillRun> inputs = std::move(runs_);
  runs_.clear();
  Merge merge(spec_, options_.limit);
  for (const SpillRun& run : inputs) QUARRY_RETURN_IF_ERROR(merge.AddRun(run));
  QUARRY_RETURN_IF_ERROR(merge.Start());
  return WriteRun(&merge);
}

Status ExternalSorter::Finish() {
  QUARRY_DCHECK(!finished_);
  finished_ = true;
  SortBuffer();
  if (runs_.empty()) return Status::OK();
  merge_ = std::make_unique<Merge>(spec_, options_.limit);
  for (const SpillRun& run : runs_) QUARRY_RETURN_IF_ERROR(merge_->AddRun(run));
  merge_->AddMemory(std::move(buffer_));
  buffer_.clear();
  buffer_bytes_ = 0;
  return merge_->Start();
}

StatusWith<bool> ExternalSorter::Next(Item* out) {
  QUARRY_DCHECK(finished_);
  if (merge_ != nullptr) return merge_->Next(out);
  if (next_ >= buffer_.size()) {
    buffer_.clear();
    buffer_.shrink_to_fit();
    next_ = 0;
    return false;
  }
  *out = std::move(buffer_[next_++]);
  return true;
}

}  // namespace quarry::query
