// Parsing $changeStream and the stages after it, with mongod's validation errors
// (document_source_change_stream.cpp, change_stream_spec IDL, pipeline checks).
#include "changestream/change_stream_spec.h"

#include <algorithm>
#include <iterator>

#include "bson/builder.h"

namespace quarry::changestream {
namespace {

constexpr std::string_view kStage = "$changeStream";

Status Location(int code, std::string message) {
  return Status(static_cast<ErrorCode>(code), std::move(message));
}

Status WrongType(std::string_view field, bson::ValueView value, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '$changeStream." + std::string(field) +
                                              "' is the wrong type '" +
                                              std::string(bson::TypeAlias(value.type())) +
                                              "', expected type '" + std::string(expected) + "'");
}

Status BadEnum(std::string_view field, std::string_view value) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" + std::string(value) +
                                          "' for field '$changeStream." + std::string(field) +
                                          "' is not a valid value.");
}

StatusWith<bool> ParseBool(std::string_view field, bson::ValueView value) {
  if (value.type() != bson::Type::kBool) return WrongType(field, value, "bool");
  return value.Bool();
}

StatusWith<FullDocumentMode> ParseFullDocument(bson::ValueView value) {
  if (value.type() != bson::Type::kString) return WrongType("fullDocument", value, "string");
  std::string_view s = value.String();
  if (s == "default") return FullDocumentMode::kDefault;
  if (s == "updateLookup") return FullDocumentMode::kUpdateLookup;
  if (s == "whenAvailable") return FullDocumentMode::kWhenAvailable;
  if (s == "required") return FullDocumentMode::kRequired;
  return BadEnum("fullDocument", s);
}

StatusWith<BeforeChangeMode> ParseBeforeChange(bson::ValueView value) {
  if (value.type() != bson::Type::kString) {
    return WrongType("fullDocumentBeforeChange", value, "string");
  }
  std::string_view s = value.String();
  if (s == "off") return BeforeChangeMode::kOff;
  if (s == "whenAvailable") return BeforeChangeMode::kWhenAvailable;
  if (s == "required") return BeforeChangeMode::kRequired;
  return BadEnum("fullDocumentBeforeChange", s);
}

StatusWith<ResumeToken> ParseTokenOption(std::string_view field, bson::ValueView value) {
  if (value.type() != bson::Type::kDocument) return WrongType(field, value, "object");
  return ParseResumeToken(value);
}

// Options mongod accepts for internal or test use; Quarry accepts and ignores them.
bool IsIgnoredOption(std::string_view name) {
  static constexpr std::string_view kIgnored[] = {
      "showSystemEvents",     "showRawUpdateDescription", "showMigrationEvents",
      "allowToRunOnConfigDB", "allowToRunOnSystemNS",     "showCommitTimestamp"};
  return std::ranges::find(kIgnored, name) != std::end(kIgnored);
}

Status ValidateNamespace(const ChangeStreamSpec& spec, bool all_changes_for_cluster) {
  if (all_changes_for_cluster) {
    if (spec.db != "admin" || spec.scope == StreamScope::kCollection) {
      return Status(ErrorCode::kInvalidOptions,
                    "A $changeStream with 'allChangesForCluster:true' may only be opened on the "
                    "'admin' database, and with no collection name");
    }
    return Status::OK();
  }
  if (spec.db == "admin" || spec.db == "config" || spec.db == "local") {
    return Status(ErrorCode::kInvalidNamespace,
                  "$changeStream may not be opened on the internal " + spec.db + " database");
  }
  if (spec.scope == StreamScope::kCollection && spec.coll.starts_with("system.")) {
    return Status(ErrorCode::kInvalidNamespace, "$changeStream may not be opened on the internal " +
                                                    spec.db + "." + spec.coll + " collection");
  }
  return Status::OK();
}

// Stages mongod knows. A name outside this list is "Unrecognized" (40324) even where Quarry's
// query layer would know it; inside it and not allowed after $changeStream, it is 20.
bool IsKnownStageName(std::string_view name) {
  // Space-separated, with a space at both ends, so " $name " finds whole names only.
  static constexpr std::string_view kKnown =
      " "
      "$addFields $bucket $bucketAuto $changeStream $changeStreamSplitLargeEvent $collStats "
      "$count $currentOp $densify $documents $facet $fill $geoNear $graphLookup $group "
      "$indexStats $limit $listLocalSessions $listSampledQueries $listSearchIndexes "
      "$listSessions $lookup $match $merge $out $planCacheStats $project $querySettings "
      "$rankFusion $redact $replaceRoot $replaceWith $sample $scoreFusion $search $searchMeta "
      "$set $setWindowFields $shardedDataDistribution $skip $sort $sortByCount $unionWith $unset "
      "$unwind $vectorSearch $listCatalog $listClusterCatalog $queryStats $score $rerank "
      "$_internalInhibitOptimization ";
  if (name.empty() || name.find(' ') != std::string_view::npos) return false;
  return kKnown.find(" " + std::string(name) + " ") != std::string_view::npos;
}

bool IsAllowedAfterChangeStream(std::string_view name) {
  static constexpr std::string_view kAllowed[] = {"$match",       "$project", "$addFields",
                                                  "$set",         "$unset",   "$replaceRoot",
                                                  "$replaceWith", "$redact"};
  return std::ranges::find(kAllowed, name) != std::end(kAllowed);
}

}  // namespace

StatusWith<ChangeStreamSpec> ParseChangeStreamStage(bson::ValueView stage, std::string_view db,
                                                    std::optional<std::string_view> coll) {
  if (stage.type() != bson::Type::kDocument) {
    return Location(50808, "$changeStream stage expects a document as argument");
  }
  ChangeStreamSpec spec;
  spec.db = std::string(db);
  spec.scope = coll.has_value() ? StreamScope::kCollection : StreamScope::kDatabase;
  if (coll.has_value()) spec.coll = std::string(*coll);
  bool all_changes_for_cluster = false;

  for (const bson::Element& e : stage.Document()) {
    if (e.value.IsNullish()) continue;  // js-bson sends `undefined` options as null
    if (e.key == "fullDocument") {
      QUARRY_ASSIGN_OR_RETURN(spec.full_document, ParseFullDocument(e.value));
    } else if (e.key == "fullDocumentBeforeChange") {
      QUARRY_ASSIGN_OR_RETURN(spec.full_document_before_change, ParseBeforeChange(e.value));
    } else if (e.key == "resumeAfter") {
      QUARRY_ASSIGN_OR_RETURN(ResumeToken token, ParseTokenOption(e.key, e.value));
      spec.resume_after = std::move(token);
    } else if (e.key == "startAfter") {
      QUARRY_ASSIGN_OR_RETURN(ResumeToken token, ParseTokenOption(e.key, e.value));
      spec.start_after = std::move(token);
    } else if (e.key == "startAtOperationTime") {
      if (e.value.type() != bson::Type::kTimestamp) {
        return WrongType(e.key, e.value, "timestamp");
      }
      spec.start_at_operation_time = e.value.Timestamp();
    } else if (e.key == "showExpandedEvents") {
      QUARRY_ASSIGN_OR_RETURN(spec.show_expanded_events, ParseBool(e.key, e.value));
    } else if (e.key == "allChangesForCluster") {
      QUARRY_ASSIGN_OR_RETURN(all_changes_for_cluster, ParseBool(e.key, e.value));
    } else if (IsIgnoredOption(e.key)) {
      QUARRY_RETURN_IF_ERROR(ParseBool(e.key, e.value));
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '$changeStream." + std::string(e.key) + "' is an unknown field.");
    }
  }

  QUARRY_RETURN_IF_ERROR(ValidateNamespace(spec, all_changes_for_cluster));
  if (all_changes_for_cluster) spec.scope = StreamScope::kCluster;

  if (spec.resume_after.has_value() && spec.start_after.has_value()) {
    return Location(50865,
                    "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream "
                    "stage");
  }
  const bool has_token = spec.resume_after.has_value() || spec.start_after.has_value();
  if (has_token && spec.start_at_operation_time.has_value()) {
    return Location(40674, "Only one type of resume option is allowed, but multiple were found.");
  }
  if (spec.resume_after.has_value() && spec.resume_after->from_invalidate) {
    return Status(ErrorCode::kInvalidResumeToken,
                  "Attempting to resume a change stream using 'resumeAfter' is not allowed from "
                  "an invalidate notification.");
  }
  const ResumeToken* token = spec.resume_after.has_value()  ? &*spec.resume_after
                             : spec.start_after.has_value() ? &*spec.start_after
                                                            : nullptr;
  if (token != nullptr && token->is_event() && spec.scope == StreamScope::kCollection &&
      token->uuid.empty()) {
    return Status(ErrorCode::kInvalidResumeToken,
                  "Attempted to resume a single-collection stream, but the resume token does not "
                  "include a UUID.");
  }
  return spec;
}

StatusWith<bool> IsChangeStreamPipeline(bson::DocumentView pipeline) {
  bool first = true;
  bool starts_with_change_stream = false;
  for (const bson::Element& e : pipeline) {
    const bool is_first = first;
    first = false;
    if (e.value.type() != bson::Type::kDocument) continue;  // the pipeline parser reports it
    bson::DocumentView stage = e.value.Document();
    if (stage.empty()) continue;
    if (stage.FirstKey() != kStage) continue;
    if (!is_first) {
      return Location(40602, "$changeStream is only valid as the first stage in a pipeline.");
    }
    if (stage.CountElements() != 1) {
      return Location(40323,
                      "A pipeline stage specification object must contain exactly one field.");
    }
    starts_with_change_stream = true;
  }
  return starts_with_change_stream;
}

StatusWith<ChangeStreamRequest> ParseChangeStreamPipeline(bson::DocumentView pipeline,
                                                          std::string_view db,
                                                          std::optional<std::string_view> coll,
                                                          query::PipelineContext context) {
  QUARRY_ASSIGN_OR_RETURN(bool is_change_stream, IsChangeStreamPipeline(pipeline));
  if (!is_change_stream) {
    return Status(ErrorCode::kInternalError, "not a $changeStream pipeline");
  }
  auto it = pipeline.begin();
  QUARRY_ASSIGN_OR_RETURN(ChangeStreamSpec spec,
                          ParseChangeStreamStage(it->value.Document().Get(kStage), db, coll));

  // Check every later stage's name before parsing them: a $group is refused as such (20), not
  // parsed as one.
  bson::ArrayBuilder rest;
  for (++it; it != pipeline.end(); ++it) {
    if (it->value.type() == bson::Type::kDocument && it->value.Document().CountElements() == 1) {
      std::string_view name = it->value.Document().FirstKey();
      if (!IsKnownStageName(name)) {
        return Location(40324, "Unrecognized pipeline stage name: '" + std::string(name) + "'");
      }
      if (name == kStage) {
        return Location(40602, "$changeStream is only valid as the first stage in a pipeline.");
      }
      if (!IsAllowedAfterChangeStream(name)) {
        return Status(ErrorCode::kIllegalOperation,
                      std::string(name) + " is not permitted in a $changeStream pipeline");
      }
    }
    rest.Append(it->value);
  }
  bson::Document stages = std::move(rest).Finish();
  if (context.db.empty()) context.db = std::string(db);
  QUARRY_ASSIGN_OR_RETURN(query::Pipeline post_stages,
                          query::Pipeline::Parse(stages.view(), std::move(context)));
  return ChangeStreamRequest{std::move(spec), std::move(post_stages)};
}

std::string CursorNamespace(const ChangeStreamSpec& spec) {
  if (spec.scope == StreamScope::kCollection) return spec.db + "." + spec.coll;
  return spec.db + ".$cmd.aggregate";
}

}  // namespace quarry::changestream
