// The cursor of a tailable find on a capped collection: its plan reads on from the end of the
// collection at each getMore (exec/stages/natural_scan.h), and an awaitData getMore waits for
// the next commit when nothing is there yet (awaiting_tail.h).
#pragma once

#include <memory>

#include "changestream/change_notifier.h"
#include "commands/cursors/awaiting_tail.h"
#include "exec/plan_executor.h"

namespace quarry::commands {

class CappedTailSource final : public TailSource {
 public:
  // `notifier` may be null: then awaitData getMores answer at once.
  CappedTailSource(std::unique_ptr<exec::PlanExecutor> executor,
                   const changestream::ChangeNotifier* notifier)
      : executor_(std::move(executor)), notifier_(notifier) {}

  StatusWith<query::Batch> NextBatch(std::size_t max_docs, std::size_t max_bytes) override {
    // Noted before reading: a commit the read misses is announced after this.
    if (notifier_ != nullptr) last_read_ = notifier_->latest();
    return executor_->NextBatch(max_docs, max_bytes);
  }
  bool exhausted() const override { return executor_->exhausted(); }
  storage::Timestamp last_read() const override { return last_read_; }

 private:
  std::unique_ptr<exec::PlanExecutor> executor_;
  const changestream::ChangeNotifier* notifier_;
  storage::Timestamp last_read_ = 0;
};

}  // namespace quarry::commands
