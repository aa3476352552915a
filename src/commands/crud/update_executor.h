// Runs one update statement (or findAndModify's update) against a collection: match, apply,
// replace with the pre-image check, retry on write conflicts, upsert when nothing matched.
#pragma once

#include <functional>
#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command_context.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"
#include "query/update/update.h"
#include "storage/oplog_entry.h"

namespace quarry::commands {

struct UpdateOutcome;

struct UpdateStatement {
  std::size_t index = 0;  // its position in the command: a retryable write's statement number
  query::Matcher matcher;
  query::UpdateSpec update;
  bool multi = false;
  bool upsert = false;
  std::optional<query::SortSpec> sort;  // findAndModify: which match to update first
  bool bypass_validation = false;       // bypassDocumentValidation
  bson::ValueView hint;                 // an index name or key pattern; absent: none
  // What a retryable write records once the statement changed its document (RecordedOutcome
  // when unset); findAndModify records its whole reply.
  std::function<bson::Document(const UpdateOutcome&)> recorded_outcome;
};

struct UpdateOutcome {
  std::int64_t matched = 0;
  std::int64_t modified = 0;
  std::optional<bson::Document> upserted_id;  // {_id: value}
  // findAndModify's images of the one document it touched.
  std::optional<bson::Document> pre_image;
  std::optional<bson::Document> post_image;
  std::optional<double> text_score;  // the document's, when the filter has a $text
};

// What a retryable write records for an update that changed its document: {} for a match,
// {upserted: <_id>} for an upsert.
bson::Document RecordedOutcome(const UpdateOutcome& outcome);
// The outcome of a statement an earlier attempt of the retryable write executed, from its
// record.
UpdateOutcome ExecutedUpdateOutcome(bson::DocumentView recorded);

// How an update's oplog entry and change event describe it.
inline storage::UpdateKind UpdateKindOf(const query::UpdateSpec& update) {
  return update.kind() == query::UpdateSpec::Kind::kReplacement ? storage::UpdateKind::kReplace
                                                                : storage::UpdateKind::kModify;
}

// Applies the statement. The collection is created when missing and the statement upserts.
StatusWith<UpdateOutcome> ExecuteUpdate(CommandContext& ctx, const std::string& db,
                                        const std::string& coll, const UpdateStatement& statement);

}  // namespace quarry::commands
