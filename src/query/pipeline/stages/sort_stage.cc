// $sort: a stable blocking sort within the memory limit; after a $limit it keeps only the best
// `limit` documents (top-k).
#include <algorithm>

#include "query/pipeline/stages/stage_internal.h"
#include "query/sort/sort.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

class SortStage final : public Stage {
 public:
  SortStage(bson::ValueView spec, SortSpec sort, std::int64_t limit)
      : Stage(spec), sort_(std::move(sort)), limit_(limit) {}
  std::string_view name() const override { return "$sort"; }
  const SortSpec& sort() const { return sort_; }
  const SortSpec* pushdown_sort() const override { return sort_.needs_sort() ? &sort_ : nullptr; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const SortStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run.pipeline));
  }

 private:
  struct Entry {
    bson::Document doc;
    std::size_t seq;
    DocumentMetadata metadata;
  };

  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const SortStage> stage, std::unique_ptr<DocumentStream> input,
           std::shared_ptr<const PipelineContext> ctx)
        : stage_(std::move(stage)), input_(std::move(input)), ctx_(std::move(ctx)) {}

    StatusWith<bool> Next(bson::Document* out) override {
      if (!loaded_) {
        QUARRY_RETURN_IF_ERROR(Load());
        loaded_ = true;
      }
      if (next_ >= entries_.size()) return false;
      current_ = next_;
      *out = std::move(entries_[next_++].doc);
      return true;
    }

    const DocumentMetadata& metadata() const override {
      return current_ < entries_.size() ? entries_[current_].metadata : DocumentStream::metadata();
    }

   private:
    bool Less(const Entry& a, const Entry& b) const {
      int c = stage_->sort_.Compare(a.doc, b.doc);
      return c != 0 ? c < 0 : a.seq < b.seq;
    }

    void SortAndTrim(std::size_t keep) {
      std::sort(entries_.begin(), entries_.end(),
                [this](const Entry& a, const Entry& b) { return Less(a, b); });
      if (entries_.size() > keep) {
        for (std::size_t i = keep; i < entries_.size(); ++i) bytes_ -= entries_[i].doc.size();
        entries_.resize(keep);
      }
    }

    Status Load() {
      const std::size_t limit_bytes = ctx_ != nullptr ? ctx_->max_memory_bytes : SIZE_MAX;
      const bool allow_disk = ctx_ != nullptr && ctx_->allow_disk_use;
      const std::int64_t limit = stage_->limit_;
      std::size_t seq = 0;
      while (true) {
        bson::Document doc;
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
        if (!more) break;
        bytes_ += doc.size();
        entries_.push_back(Entry{std::move(doc), seq++, input_->metadata()});
        if (limit > 0 && entries_.size() >= 2 * static_cast<std::size_t>(limit) + 16) {
          SortAndTrim(static_cast<std::size_t>(limit));
        }
        if (bytes_ > limit_bytes) {
          // There is no external sort: with allowDiskUse the limit still holds, under the
          // code that says so rather than "did not opt in".
          if (allow_disk) {
            return Status(ErrorCode::kExceededMemoryLimit,
                          "Sort exceeded memory limit of " + std::to_string(limit_bytes) +
                              " bytes, and external sorting is not supported.");
          }
          return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                        "Sort exceeded memory limit of " + std::to_string(limit_bytes) +
                            " bytes, but did not opt in to external sorting.");
        }
      }
      SortAndTrim(limit > 0 ? static_cast<std::size_t>(limit) : entries_.size());
      return Status::OK();
    }

    std::shared_ptr<const SortStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    std::shared_ptr<const PipelineContext> ctx_;
    std::vector<Entry> entries_;
    std::size_t bytes_ = 0;
    std::size_t next_ = 0;
    std::size_t current_ = SIZE_MAX;
    bool loaded_ = false;
  };

  SortSpec sort_;
  std::int64_t limit_;  // 0: no limit
};

}  // namespace

StatusWith<StageList> ParseSortStage(bson::ValueView spec, StageParseContext& ctx) {
  if (spec.type() != bson::Type::kDocument) {
    return LocationError(15973, "the $sort key specification must be an object");
  }
  if (spec.Document().empty()) {
    return LocationError(15976, "$sort stage must have at least one sort key");
  }
  QUARRY_ASSIGN_OR_RETURN(SortSpec sort,
                          SortSpec::Parse(spec.Document(), ctx.expressions->shared_collator()));
  return StageList{std::make_shared<SortStage>(spec, std::move(sort), 0)};
}

StagePtr MergeSortAndLimit(const StagePtr& stage, std::int64_t limit) {
  const auto* sort = dynamic_cast<const SortStage*>(stage.get());
  if (sort == nullptr) return nullptr;
  return std::make_shared<SortStage>(sort->spec(), sort->sort(), limit);
}

}  // namespace quarry::query::stages
