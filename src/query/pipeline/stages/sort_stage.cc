// $sort: a stable blocking sort within the memory limit, spilling sorted runs to disk past it
// under allowDiskUse (query/sort/external_sorter.h); after a $limit it keeps only the best
// `limit` documents (top-k).
#include "query/pipeline/stages/stage_internal.h"
#include "query/sort/external_sorter.h"
#include "query/sort/sort.h"
#include "query/spill/spill_stats.h"
#include "query/value/location_error.h"

namespace quarry::query::stages {
namespace {

class SortStage final : public Stage {
 public:
  SortStage(bson::ValueView spec, SortSpec sort, std::int64_t limit)
      : Stage(spec), sort_(std::move(sort)), limit_(limit) {}
  std::string_view name() const override { return "$sort"; }
  const SortSpec& sort() const { return sort_; }
  // No index orders documents by their text scores.
  const SortSpec* pushdown_sort() const override {
    return sort_.needs_sort() && !sort_.sorts_by_text_score() ? &sort_ : nullptr;
  }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext& run) const override {
    auto self = std::static_pointer_cast<const SortStage>(shared_from_this());
    return std::unique_ptr<DocumentStream>(
        std::make_unique<Stream>(std::move(self), std::move(input), run.pipeline));
  }

 private:
  class Stream final : public DocumentStream {
   public:
    Stream(std::shared_ptr<const SortStage> stage, std::unique_ptr<DocumentStream> input,
           std::shared_ptr<const PipelineContext> ctx)
        : stage_(std::move(stage)), input_(std::move(input)), ctx_(std::move(ctx)) {}

    StatusWith<bool> Next(bson::Document* out) override {
      if (!loaded_) {
        loaded_ = true;
        Status loaded = Load();
        if (!loaded.ok()) {
          sorter_.reset();  // removes any run it wrote
          return loaded;
        }
      }
      if (sorter_ == nullptr) return false;
      ExternalSorter::Item item;
      QUARRY_ASSIGN_OR_RETURN(bool more, sorter_->Next(&item));
      metadata_.values.clear();
      if (!more) {
        // The runs go as soon as the last document is out, not when the cursor is closed.
        finished_stats_ = sorter_->spill_stats();
        finished_bytes_sorted_ = sorter_->bytes_sorted();
        sorter_.reset();
        return false;
      }
      *out = std::move(item.doc);
      for (const bson::Element& e : item.extra.view()) {
        metadata_.values.emplace(std::string(e.key), Value::Copy(e.value));
      }
      return true;
    }

    const DocumentMetadata& metadata() const override { return metadata_; }

    void AppendExecutionStats(bson::DocumentBuilder* out) const override {
      const SpillStats& spilled = sorter_ != nullptr ? sorter_->spill_stats() : finished_stats_;
      const std::uint64_t sorted =
          sorter_ != nullptr ? sorter_->bytes_sorted() : finished_bytes_sorted_;
      out->AppendInt64("totalDataSizeSortedBytesEstimate", static_cast<std::int64_t>(sorted));
      out->AppendBool("usedDisk", spilled.used_disk());
      out->AppendInt64("spills", spilled.spills);
      out->AppendInt64("spilledDataStorageSize", spilled.spilled_bytes);
    }

   private:
    Status Load() {
      SorterOptions options;
      options.limit = static_cast<std::size_t>(stage_->limit_);
      options.counters = &SortSpillCounters();
      if (ctx_ != nullptr) {
        options.max_memory_bytes = ctx_->max_memory_bytes;
        if (ctx_->allow_disk_use) options.spill_dir = ctx_->spill_dir;
      } else {
        options.max_memory_bytes = SIZE_MAX;
      }
      sorter_ = std::make_unique<ExternalSorter>(stage_->sort_, std::move(options));
      if (ctx_ != nullptr && ctx_->allow_disk_use && ctx_->spill_dir.empty()) {
        // Nowhere to spill: the limit holds, under the code that says so rather than "did
        // not opt in".
        Status added = LoadAll();
        if (added.code() == ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed) {
          return Status(ErrorCode::kExceededMemoryLimit,
                        "Sort exceeded memory limit of " + std::to_string(ctx_->max_memory_bytes) +
                            " bytes, and this pipeline has no directory to spill to.");
        }
        return added;
      }
      return LoadAll();
    }

    Status LoadAll() {
      while (true) {
        bson::Document doc;
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
        if (!more) break;
        if (stage_->sort_.sorts_by_text_score() &&
            !input_->metadata().values.contains("textScore")) {
          return LocationError(40218,
                               "query requires text score metadata, but it is not available");
        }
        bson::DocumentBuilder extra;
        for (const auto& [name, value] : input_->metadata().values) value.AppendTo(name, &extra);
        QUARRY_RETURN_IF_ERROR(sorter_->Add(std::move(doc), std::move(extra).Finish()));
      }
      return sorter_->Finish();
    }

    std::shared_ptr<const SortStage> stage_;
    std::unique_ptr<DocumentStream> input_;
    std::shared_ptr<const PipelineContext> ctx_;
    std::unique_ptr<ExternalSorter> sorter_;
    DocumentMetadata metadata_;  // of the document the last Next produced
    SpillStats finished_stats_;  // the sorter's, once it is gone
    std::uint64_t finished_bytes_sorted_ = 0;
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
