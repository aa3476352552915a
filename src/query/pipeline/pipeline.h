// Aggregation pipelines ([{$match: ...}, {$group: ...}, ...]): parsed once into a chain of
// stages, then run as pull-based streams of documents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/interrupt.h"
#include "base/status.h"
#include "bson/value.h"
#include "query/cursor_source.h"
#include "query/expression/expression.h"
#include "query/match/matcher.h"
#include "query/sort/sort.h"

namespace quarry::query {

// A source of documents, pulled one at a time.
class DocumentStream {
 public:
  virtual ~DocumentStream() = default;
  // Stores the next document in *out and returns true, or returns false at the end. After an
  // error or the end, the stream stays exhausted.
  virtual StatusWith<bool> Next(bson::Document* out) = 0;
  // Metadata of the document the last Next produced ($vectorSearch's score...); empty by
  // default. Stages that keep documents as they are pass it along.
  virtual const DocumentMetadata& metadata() const;
  // Appends what explain's executionStats show of the stage beyond what it returned
  // ($sort's and $group's usedDisk, spills...); nothing by default.
  virtual void AppendExecutionStats(bson::DocumentBuilder* out) const;
};

// A stream over documents held in memory.
std::unique_ptr<DocumentStream> StreamOfDocuments(std::vector<bson::Document> docs);
// A client cursor's view of a pipeline's output (batches within the size limits).
std::unique_ptr<CursorSource> CursorOverStream(std::unique_ptr<DocumentStream> stream);

// $out's target.
struct OutTarget {
  std::string db;
  std::string coll;
};

// $merge's specification, parsed; the writer applies it per document (see MergeDocuments).
struct MergeSpec {
  enum class WhenMatched { kReplace, kKeepExisting, kMerge, kFail, kPipeline };
  enum class WhenNotMatched { kInsert, kDiscard, kFail };
  OutTarget into;
  std::vector<std::string> on = {"_id"};  // fields identifying the target document
  WhenMatched when_matched = WhenMatched::kMerge;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
  bson::Document when_matched_pipeline;  // for kPipeline: an array of update stages
  bson::Document let;                    // $merge's `let` (default {new: "$$ROOT"})
};

// What the target document of a $merge becomes when `incoming` matched `existing`, per
// spec.when_matched (kReplace, kKeepExisting, kMerge, kPipeline). kFail gives DuplicateKey-like
// errors and is the writer's to report. REQUIRES: when_matched != kFail.
StatusWith<bson::Document> MergeDocuments(const MergeSpec& spec, bson::DocumentView existing,
                                          bson::DocumentView incoming);

class Stage;
struct RunContext;

// Parses stages that live in other layers ($vectorSearch, $changeStream...): returns the stage,
// or nullptr when `name` is not one it knows (then the pipeline fails with 40324).
using ExternalStageParser = std::function<StatusWith<std::shared_ptr<const Stage>>(
    std::string_view name, bson::ValueView spec)>;

// Everything a pipeline needs from its caller. Callbacks may be empty when the pipeline does not
// need them (a $lookup without open_collection fails with NotImplemented, for example).
struct PipelineContext {
  std::string db;  // the aggregate's database: default for $lookup's `from` and $out
  // The aggregate command's `let` ({name: <expression>}), evaluated once before parsing.
  bson::Document let;
  // $$SEARCH_META: the count (and facets) of the $search the pipeline follows, when it has one.
  std::optional<bson::Document> search_meta;
  // The aggregate's allowDiskUse: past their limits, $sort and $group write sorted runs to
  // `spill_dir` and merge them (without it they fail with 292
  // QueryExceededMemoryLimitNoDiskUseAllowed, as mongod's do). $lookup's foreign side and
  // $facet never spill: past the limit they fail either way.
  bool allow_disk_use = false;
  // Where runs go (the server's <dbpath>/_tmp). Empty: nowhere, and a stage that would spill
  // fails with ExceededMemoryLimit.
  std::string spill_dir;
  // mongod's 100 MB limits of blocking stages: $sort's (internalQueryMaxBlockingSortMemory-
  // UsageBytes), which $lookup's foreign side and $facet use too, and $group's
  // (internalDocumentSourceGroupMaxMemoryBytes).
  std::size_t max_memory_bytes = 100 * 1024 * 1024;
  std::size_t max_group_memory_bytes = 100 * 1024 * 1024;
  // The aggregate's collation (null: simple): $match, $sort, $group keys, $lookup's equality
  // and comparison expressions compare strings under it.
  std::shared_ptr<const bson::StringComparator> collator;
  // The operation's (killOp, maxTimeMS, shutdown). Scans check it themselves; a stage whose work
  // per document is unbounded by any scan ($lookup's matching against its foreign side, held in
  // memory) checks it once per document. Null: the run cannot be interrupted.
  std::shared_ptr<const Interrupt> interrupt;

  // Reads every document of a collection ($lookup, $unionWith). A missing collection is an empty
  // stream, as in mongod.
  std::function<StatusWith<std::unique_ptr<DocumentStream>>(const std::string& db,
                                                            const std::string& coll)>
      open_collection;
  // Runs a search stage ($search, $searchMeta or $vectorSearch) on a collection: the first
  // stage of a $unionWith's or $lookup's sub-pipeline, which Atlas allows to search another
  // collection.
  std::function<StatusWith<std::unique_ptr<DocumentStream>>(
      const std::string& db, const std::string& coll, bson::DocumentView stage)>
      open_search;
  // What $$SEARCH_META holds after the {$search: ...} `stage` on a collection, for a
  // sub-pipeline that starts with it.
  std::function<StatusWith<bson::Document>(const std::string& db, const std::string& coll,
                                           bson::DocumentView stage)>
      open_search_meta;
  // $out: replaces the target collection with `docs` (mongod writes a temporary collection and
  // renames it over the target).
  std::function<Status(const OutTarget& target, DocumentStream* docs)> write_out;
  // $merge: writes `docs` into spec.into per spec (see MergeDocuments for the matched case).
  std::function<Status(const MergeSpec& spec, DocumentStream* docs)> write_merge;
  ExternalStageParser parse_external_stage;
};

// The per-run state all stages share: the caller's context and the variables ($$NOW, `let`
// slots of $lookup) that expressions start from.
struct RunContext {
  std::shared_ptr<const PipelineContext> pipeline;
  EvalContext variables;
};

// One stage. Stages are immutable once parsed and may be opened many times (a $lookup
// sub-pipeline opens once per input document).
class Stage : public std::enable_shared_from_this<Stage> {
 public:
  virtual ~Stage() = default;
  // "$match", "$group", ...
  virtual std::string_view name() const = 0;
  // Connects this stage to `input` and returns the stage's output. The stream may keep the
  // stage alive (through shared_from_this), so it can outlive the Pipeline.
  virtual StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                           const RunContext& run) const = 0;
  // The specification as written ({$match: {...}}'s value), for explain and for callers that
  // absorb a stage (a leading $match pushed into the collection scan).
  bson::ValueView spec() const { return spec_.Get("spec"); }
  // Only for stages that write ($out, $merge): must be last.
  virtual bool writes_output() const { return false; }
  // A filter that the scan feeding a pipeline can apply in this stage's place: a $match whose
  // conditions need no pipeline variables. Null for every other stage.
  virtual const Matcher* pushdown_filter() const { return nullptr; }
  // The order of a $sort, which the scan feeding a pipeline can give in this stage's place when
  // it reads in that order (a $limit merged into the $sort stays in the pipeline as its own
  // stage). Null for every other stage.
  virtual const SortSpec* pushdown_sort() const { return nullptr; }

 protected:
  explicit Stage(bson::ValueView spec);

 private:
  bson::Document spec_;  // {spec: <value>}
};

// Whether `stages` name $$SEARCH_META anywhere (a name in a string is in the BSON bytes as it
// is): only then is a $search's count computed for them.
bool NamesSearchMeta(bson::DocumentView stages);

class Pipeline {
 public:
  // Parses an array of stage documents. Errors as mongod: 40323 "A pipeline stage specification
  // object must contain exactly one field.", 40324 "Unrecognized pipeline stage name: '$foo'",
  // 40601 "$out can only be the final stage in the pipeline", and each stage's own errors.
  static StatusWith<Pipeline> Parse(bson::DocumentView stages, PipelineContext ctx);
  // Parses with a caller's ParseContext (variables already in scope: $lookup sub-pipelines).
  static StatusWith<Pipeline> Parse(bson::DocumentView stages,
                                    std::shared_ptr<const PipelineContext> ctx,
                                    ParseContext* parse_ctx);

  // Runs the pipeline over `input`. Blocking stages ($sort, $group) read their input on the
  // first Next; $out and $merge write everything on the first Next and produce nothing.
  StatusWith<std::unique_ptr<DocumentStream>> Run(std::unique_ptr<DocumentStream> input) const;
  // As Run, with variables already bound (a $lookup's `let`).
  StatusWith<std::unique_ptr<DocumentStream>> Run(std::unique_ptr<DocumentStream> input,
                                                  const EvalContext& variables) const;

  // As Run, passing each stage's output through `observe` (given the stage's position) before
  // the next stage reads it: explain counts what every stage returned this way.
  using StreamObserver = std::function<std::unique_ptr<DocumentStream>(
      std::size_t stage_idx, std::unique_ptr<DocumentStream> output)>;
  StatusWith<std::unique_ptr<DocumentStream>> RunObserved(std::unique_ptr<DocumentStream> input,
                                                          const StreamObserver& observe) const;

  const std::vector<std::shared_ptr<const Stage>>& stages() const { return stages_; }
  // Drops the first `count` stages, after the caller absorbed them (a leading $match, $sort,
  // $skip or $limit pushed into the collection scan).
  void RemoveFirstStages(std::size_t count);
  // True when the last stage is $out or $merge.
  bool writes_output() const;
  const PipelineContext& context() const { return *ctx_; }

 private:
  std::shared_ptr<const PipelineContext> ctx_;
  std::vector<std::shared_ptr<const Stage>> stages_;
};

}  // namespace quarry::query
