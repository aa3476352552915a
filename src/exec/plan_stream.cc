#include "exec/plan_stream.h"

#include <deque>

#include "exec/operation_work.h"

namespace quarry::exec {
namespace {

class PlanStream final : public query::DocumentStream {
 public:
  explicit PlanStream(std::unique_ptr<PlanStage> root) : root_(std::move(root)) {}

  StatusWith<bool> Next(bson::Document* out) override {
    if (buffer_.empty()) {
      if (done_) return false;
      Status refilled = Refill();
      root_->Save();
      NotePlanRan(*root_);
      QUARRY_RETURN_IF_ERROR(refilled);
      if (buffer_.empty()) return false;
    }
    *out = std::move(buffer_.front().doc);
    metadata_.values.clear();
    if (buffer_.front().text_score.has_value()) {
      metadata_.values.emplace("textScore", query::Value::Double(*buffer_.front().text_score));
    }
    buffer_.pop_front();
    return true;
  }

  const query::DocumentMetadata& metadata() const override { return metadata_; }

 private:
  static constexpr std::size_t kChunkDocs = 1000;
  static constexpr std::size_t kChunkBytes = 4 * 1024 * 1024;

  Status Refill() {
    QUARRY_RETURN_IF_ERROR(root_->Restore());
    std::size_t bytes = 0;
    PlanResult result;
    while (buffer_.size() < kChunkDocs && bytes < kChunkBytes) {
      StatusWith<bool> more = root_->Next(&result);
      if (!more.ok() || !more.value()) {
        done_ = true;
        return more.status();
      }
      buffer_.push_back(Buffered{
          result.owned.has_value() ? std::move(*result.owned) : bson::Document::Copy(result.doc),
          result.text_score});
      bytes += buffer_.back().doc.size();
    }
    return Status::OK();
  }

  struct Buffered {
    bson::Document doc;
    std::optional<double> text_score;
  };

  std::unique_ptr<PlanStage> root_;
  std::deque<Buffered> buffer_;
  query::DocumentMetadata metadata_;  // of the document the last Next produced
  bool done_ = false;
};

}  // namespace

std::unique_ptr<query::DocumentStream> StreamOfPlan(std::unique_ptr<PlanStage> root) {
  return std::make_unique<PlanStream>(std::move(root));
}

}  // namespace quarry::exec
