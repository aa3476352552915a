// FindExecutor: streams matches batch by batch, re-seeking storage after the last key it
// consumed, or buffers and sorts them when the find has a sort.
#include "query/find_executor.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace quarry::query {
namespace {

// Bookkeeping bytes charged per buffered document on top of its BSON, so that many tiny
// documents still count against the sort memory limit.
constexpr std::size_t kBufferedOverhead = 64;

Status NegativeField(std::string_view field, std::int64_t value) {
  return Status(static_cast<ErrorCode>(51024), "BSON field '" + std::string(field) +
                                                   "' value must be >= 0, actual value '" +
                                                   std::to_string(value) + "'");
}

Status SortMemoryExceeded(std::size_t limit) {
  return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                "Sort exceeded memory limit of " + std::to_string(limit) +
                    " bytes, but did not opt in to external sorting. Aborting operation. Pass "
                    "allowDiskUse:true to opt in.");
}

}  // namespace

StatusWith<FindSpec> FindSpec::Parse(bson::DocumentView filter, bson::DocumentView projection,
                                     bson::DocumentView sort, std::int64_t skip,
                                     std::int64_t limit) {
  if (skip < 0) return NegativeField("skip", skip);
  if (limit < 0) return NegativeField("limit", limit);
  FindSpec spec;
  QUARRY_ASSIGN_OR_RETURN(Matcher matcher, Matcher::Parse(filter));
  if (!matcher.MatchesEverything()) spec.filter = std::move(matcher);
  if (!projection.empty()) {
    QUARRY_ASSIGN_OR_RETURN(Projection parsed,
                            Projection::Parse(projection, spec.filter ? &*spec.filter : nullptr));
    if (!parsed.is_identity()) spec.projection = std::move(parsed);
  }
  QUARRY_ASSIGN_OR_RETURN(spec.sort, SortSpec::Parse(sort));
  spec.skip = skip;
  spec.limit = limit;
  return spec;
}

FindExecutor::FindExecutor(FindSpec spec, RecordSourceFactory open_records)
    : spec_(std::move(spec)), open_records_(std::move(open_records)) {
  buffered_mode_ = spec_.sort.needs_sort() || spec_.sort.natural() < 0;
  to_skip_ = spec_.skip;
}

StatusWith<Batch> FindExecutor::NextBatch(std::size_t max_docs, std::size_t max_bytes) {
  if (exhausted_ || max_docs == 0) return Batch{};
  StatusWith<Batch> batch = buffered_mode_ ? NextBufferedBatch(max_docs, max_bytes)
                                           : NextStreamingBatch(max_docs, max_bytes);
  if (!batch.ok()) {
    exhausted_ = true;
    buffered_.clear();
  }
  return batch;
}

bool FindExecutor::Accept(bson::DocumentView doc, MatchDetails* details) const {
  if (!spec_.filter.has_value()) return true;
  const bool wants_details = spec_.projection.has_value() && spec_.projection->uses_positional();
  return spec_.filter->Matches(doc, wants_details ? details : nullptr);
}

StatusWith<bson::Document> FindExecutor::Shape(bson::DocumentView doc,
                                               const MatchDetails& details) const {
  if (!spec_.projection.has_value()) return bson::Document::Copy(doc);
  return spec_.projection->Apply(doc, &details);
}

std::int64_t FindExecutor::RemainingLimit() const {
  if (spec_.limit <= 0) return std::numeric_limits<std::int64_t>::max();
  return spec_.limit - returned_;
}

StatusWith<Batch> FindExecutor::NextStreamingBatch(std::size_t max_docs, std::size_t max_bytes) {
  Batch batch;
  std::size_t reply_bytes = 0;
  // Re-seek rather than keep a source between batches: a live storage iterator pins every
  // version it can see, and a client may idle for minutes between getMores.
  std::unique_ptr<RecordSource> records = open_records_(resume_after_);
  if (records == nullptr) {
    exhausted_ = true;
    return batch;
  }
  for (; records->Valid(); records->Next()) {
    const bson::DocumentView doc = records->document();
    MatchDetails details;
    if (!Accept(doc, &details)) {
      resume_after_.assign(records->key());
      continue;
    }
    if (to_skip_ > 0) {
      --to_skip_;
      resume_after_.assign(records->key());
      continue;
    }
    // A further match exists: the batch is full by count, and this document stays unconsumed
    // so that the next batch starts with it. Scanning up to here tells the caller whether the
    // cursor can close now.
    if (batch.documents.size() >= max_docs) return batch;
    QUARRY_ASSIGN_OR_RETURN(bson::Document shaped, Shape(doc, details));
    const std::size_t cost = shaped.size() + BatchElementOverhead(batch.documents.size());
    if (!batch.documents.empty() && reply_bytes + cost > max_bytes) return batch;
    reply_bytes += cost;
    batch.bytes += shaped.size();
    batch.documents.push_back(std::move(shaped));
    ++returned_;
    resume_after_.assign(records->key());
    if (RemainingLimit() <= 0) {
      exhausted_ = true;
      return batch;
    }
  }
  QUARRY_RETURN_IF_ERROR(records->status());
  exhausted_ = true;
  return batch;
}

Status FindExecutor::LoadAndSort() {
  loaded_ = true;
  std::unique_ptr<RecordSource> records = open_records_("");
  if (records == nullptr) return Status::OK();
  const bool sorting = spec_.sort.needs_sort();
  // With a limit, only the first skip+limit documents in sort order can be returned: keep at
  // most about twice that many, pruning as we go (a top-k sort), so memory stays bounded.
  std::size_t keep = std::numeric_limits<std::size_t>::max();
  if (spec_.limit > 0 && spec_.skip < std::numeric_limits<std::int64_t>::max() - spec_.limit) {
    keep = static_cast<std::size_t>(spec_.skip + spec_.limit);
  }
  std::size_t bytes = 0;
  auto sort_buffer = [&] {
    std::vector<SortKey> keys;
    keys.reserve(buffered_.size());
    for (const Buffered& item : buffered_) keys.push_back(spec_.sort.MakeKey(item.doc.view()));
    std::vector<std::size_t> order(buffered_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return spec_.sort.CompareKeys(keys[a], keys[b]) < 0;
    });
    std::vector<Buffered> sorted;
    sorted.reserve(std::min(order.size(), keep));
    for (std::size_t index : order) {
      if (sorted.size() >= keep) break;
      sorted.push_back(std::move(buffered_[index]));
    }
    buffered_ = std::move(sorted);
    bytes = 0;
    for (const Buffered& item : buffered_) bytes += item.doc.size() + kBufferedOverhead;
  };
  for (; records->Valid(); records->Next()) {
    const bson::DocumentView doc = records->document();
    MatchDetails details;
    if (!Accept(doc, &details)) continue;
    buffered_.push_back(Buffered{bson::Document::Copy(doc), details});
    bytes += doc.size() + kBufferedOverhead;
    if (sorting) {
      if (keep != std::numeric_limits<std::size_t>::max() && buffered_.size() >= 2 * keep + 16) {
        sort_buffer();
      }
      if (bytes > spec_.max_sort_bytes) return SortMemoryExceeded(spec_.max_sort_bytes);
    } else if (keep != std::numeric_limits<std::size_t>::max() &&
               buffered_.size() >= 2 * keep + 16) {
      // Reverse storage order with a limit: only the last `keep` documents matter.
      buffered_.erase(buffered_.begin(),
                      buffered_.begin() + static_cast<std::ptrdiff_t>(buffered_.size() - keep));
    }
  }
  QUARRY_RETURN_IF_ERROR(records->status());
  if (sorting) {
    sort_buffer();
  } else {
    std::reverse(buffered_.begin(), buffered_.end());
    if (buffered_.size() > keep) buffered_.resize(keep);
  }
  next_buffered_ = std::min(buffered_.size(), static_cast<std::size_t>(spec_.skip));
  return Status::OK();
}

StatusWith<Batch> FindExecutor::NextBufferedBatch(std::size_t max_docs, std::size_t max_bytes) {
  if (!loaded_) QUARRY_RETURN_IF_ERROR(LoadAndSort());
  Batch batch;
  std::size_t reply_bytes = 0;
  while (next_buffered_ < buffered_.size() && batch.documents.size() < max_docs) {
    const Buffered& item = buffered_[next_buffered_];
    QUARRY_ASSIGN_OR_RETURN(bson::Document shaped, Shape(item.doc.view(), item.details));
    const std::size_t cost = shaped.size() + BatchElementOverhead(batch.documents.size());
    if (!batch.documents.empty() && reply_bytes + cost > max_bytes) break;
    reply_bytes += cost;
    batch.bytes += shaped.size();
    batch.documents.push_back(std::move(shaped));
    ++returned_;
    ++next_buffered_;
  }
  if (next_buffered_ >= buffered_.size()) {
    exhausted_ = true;
    buffered_.clear();
    buffered_.shrink_to_fit();
  }
  return batch;
}

}  // namespace quarry::query
