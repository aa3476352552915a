// What a change stream watches and how it reports: the parsed `$changeStream` stage with its
// scope (collection, database or cluster), and the user's stages after it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "changestream/resume_token.h"
#include "query/pipeline/pipeline.h"
#include "storage/types.h"

namespace quarry::changestream {

enum class StreamScope : std::uint8_t {
  kCollection,  // {aggregate: "<coll>"} on its database
  kDatabase,    // {aggregate: 1} on a database other than admin
  kCluster,     // {aggregate: 1} on admin with allChangesForCluster: true
};

// $changeStream.fullDocument
enum class FullDocumentMode : std::uint8_t { kDefault, kUpdateLookup, kWhenAvailable, kRequired };
// $changeStream.fullDocumentBeforeChange
enum class BeforeChangeMode : std::uint8_t { kOff, kWhenAvailable, kRequired };

struct ChangeStreamSpec {
  StreamScope scope = StreamScope::kCollection;
  std::string db;
  std::string coll;  // kCollection only

  FullDocumentMode full_document = FullDocumentMode::kDefault;
  BeforeChangeMode full_document_before_change = BeforeChangeMode::kOff;
  bool show_expanded_events = false;

  // At most one of these three is set.
  std::optional<ResumeToken> resume_after;
  std::optional<ResumeToken> start_after;
  std::optional<storage::Timestamp> start_at_operation_time;
};

// Parses the value of the `$changeStream` stage of an aggregate on `db` (and `coll`, or nullopt
// for {aggregate: 1}). `null` options count as absent (js-bson sends undefined as null). Errors as
// mongod:
//  - 50808 "$changeStream stage expects a document as argument" when `stage` is not a document;
//  - 40415 "BSON field '$changeStream.x' is an unknown field.";
//  - TypeMismatch (14) for a mistyped option; BadValue (2) for an unknown fullDocument /
//    fullDocumentBeforeChange value;
//  - 50865 for resumeAfter with startAfter, 40674 for a token with startAtOperationTime;
//  - InvalidResumeToken (260) for a malformed token, for resumeAfter with an invalidate token,
//    and for a collection stream resumed from an event token without a collection UUID;
//  - InvalidOptions (72) for allChangesForCluster other than on admin with {aggregate: 1};
//  - InvalidNamespace (73) for the local and config databases, admin without
//    allChangesForCluster, and system.* collections.
StatusWith<ChangeStreamSpec> ParseChangeStreamStage(bson::ValueView stage, std::string_view db,
                                                    std::optional<std::string_view> coll);

// True when `pipeline` (an aggregate's `pipeline` array) starts with $changeStream; false when it
// has none. Fails with 40602 "$changeStream is only valid as the first stage in a pipeline." when
// one appears later, and with 40323 when the first stage is not a one-field document.
StatusWith<bool> IsChangeStreamPipeline(bson::DocumentView pipeline);

// A change-stream aggregate, parsed.
struct ChangeStreamRequest {
  ChangeStreamSpec spec;
  // The stages after $changeStream ($match, $project, $addFields, $set, $unset, $replaceRoot,
  // $replaceWith, $redact), run over each event.
  query::Pipeline post_stages;
};

// Parses a pipeline whose first stage is $changeStream (see IsChangeStreamPipeline). Besides the
// stage's own errors: 40324 "Unrecognized pipeline stage name: '$x'" for unknown stages,
// IllegalOperation (20) "$group is not permitted in a $changeStream pipeline" for known stages
// that cannot follow it, 40602 for a second $changeStream, and the stages' parse errors.
// `context` is the aggregate's (its `let`, for $match's $expr).
StatusWith<ChangeStreamRequest> ParseChangeStreamPipeline(bson::DocumentView pipeline,
                                                          std::string_view db,
                                                          std::optional<std::string_view> coll,
                                                          query::PipelineContext context);

// The cursor namespace the replies report (and getMore's `collection` names): "db.coll" for a
// collection stream, "db.$cmd.aggregate" for database and cluster streams.
std::string CursorNamespace(const ChangeStreamSpec& spec);

}  // namespace quarry::changestream
