#include "commands/write_outcome.h"

#include <algorithm>
#include <string>

namespace quarry::commands {

void WriteOutcome::SortErrors() {
  std::stable_sort(errors.begin(), errors.end(),
                   [](const WriteError& x, const WriteError& y) { return x.index < y.index; });
}

void WriteOutcome::AppendTo(bson::DocumentBuilder* b) const {
  b->AppendInt32("n", static_cast<std::int32_t>(n));
  if (modified.has_value()) b->AppendInt32("nModified", static_cast<std::int32_t>(*modified));
  if (!upserted.empty()) {
    b->OpenArray("upserted");
    for (std::size_t i = 0; i < upserted.size(); ++i) {
      b->OpenDocument(std::to_string(i))
          .AppendInt32("index", static_cast<std::int32_t>(upserted[i].index))
          .Append("_id", upserted[i].id.Get("_id"))
          .Close();
    }
    b->Close();
  }
  if (errors.empty()) return;
  b->OpenArray("writeErrors");
  for (std::size_t i = 0; i < errors.size(); ++i) {
    const WriteError& error = errors[i];
    b->OpenDocument(std::to_string(i));
    b->AppendInt32("index", static_cast<std::int32_t>(error.index));
    b->AppendInt32("code", static_cast<std::int32_t>(error.status.code()));
    b->AppendString("codeName", error.status.code_name());
    b->AppendString("errmsg", error.status.reason());
    if (!error.status.extra_info().empty()) {
      b->AppendElements(bson::DocumentView(error.status.extra_info().data()));
    }
    b->Close();
  }
  b->Close();
}

Status CheckBatchSize(std::size_t statements) {
  constexpr std::size_t kMaxWriteBatchSize = 100000;
  if (statements == 0 || statements > kMaxWriteBatchSize) {
    return Status(ErrorCode::kInvalidLength,
                  "Write batch sizes must be between 1 and 100000. Got " +
                      std::to_string(statements) + " operations.");
  }
  return Status::OK();
}

}  // namespace quarry::commands
