// A plan is a tree of stages that each pull results from their children (mongod's stage names:
// COLLSCAN, IDHACK, SORT, SKIP, LIMIT, PROJECTION_DEFAULT; IXSCAN, FETCH, OR and SORT_MERGE with
// secondary indexes). Every stage counts what it did, for explain.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/builder.h"
#include "bson/value.h"
#include "query/match/matcher.h"

namespace quarry::exec {

// One result, as a stage hands it to its parent.
struct PlanResult {
  // The document. Unless `owned` holds it, the bytes belong to the stage that produced it and
  // stay valid until that stage's next Next() or Save().
  bson::DocumentView doc;
  std::optional<bson::Document> owned;
  query::MatchDetails details;  // how the filter matched, for positional projections
  // From an index scan, before FETCH: the record's encoded _id and the entry's key (its
  // encoded key fields, then the id key in an index whose keys need not be unique), valid
  // until the scan's next Next() or Save(); `doc` is empty.
  std::string_view id_key;
  std::string_view index_key;
  // From a $text search (TEXT_MATCH): the document's score, which {$meta: "textScore"} reads.
  std::optional<double> text_score;

  // Points `doc` at `owned` after `owned` was set.
  void Own(bson::Document document) {
    owned = std::move(document);
    doc = owned->view();
  }
};

// What one unit of work did (mongod's PlanStage::StageState): handed up a result, examined
// something without a result yet, or found the stage exhausted.
enum class WorkState { kAdvanced, kNeedTime, kEof };

// What a stage did, in explain's terms.
struct StageStats {
  std::int64_t works = 0;          // units of work (calls to Work)
  std::int64_t advanced = 0;       // results returned (explain's nReturned)
  std::int64_t docs_examined = 0;  // records read from storage
  std::int64_t keys_examined = 0;  // index keys read
};

class PlanStage {
 public:
  virtual ~PlanStage() = default;

  // Fills `*out` with the next result and returns true, or returns false at the end. An error
  // ends the stage. Works as often as it takes.
  StatusWith<bool> Next(PlanResult* out);

  // One unit of work: at most one index key or record examined (or one result passed on), so
  // that several plans can be run side by side in small steps. kAdvanced fills `*out`.
  StatusWith<WorkState> Work(PlanResult* out);

  // A plan does not hold storage iterators between client batches (a live iterator pins every
  // version it can see, and a client may idle for minutes between getMores): Save() lets go of
  // them, keeping the position; Restore() picks up after it. Results not yet returned stay
  // where they are. Stages without storage pass both to their children.
  virtual void Save();
  virtual Status Restore();

  // mongod's stage name: "COLLSCAN", "IDHACK", ...
  virtual std::string_view name() const = 0;
  // Appends this stage's explain fields (stage, the stage's own details, and with `with_stats`
  // what it did: nReturned, works, docsExamined, keysExamined...) and its children as
  // inputStage (or inputStages).
  void Explain(bson::DocumentBuilder* b, bool with_stats = true) const;

  // Appends mongod's planSummary of the plan below this stage (exec/operation_work.h).
  void AppendSummary(std::string* out) const;

  const StageStats& stats() const { return stats_; }
  const std::vector<std::unique_ptr<PlanStage>>& children() const { return children_; }

 protected:
  PlanStage() = default;
  explicit PlanStage(std::unique_ptr<PlanStage> child) { children_.push_back(std::move(child)); }
  explicit PlanStage(std::vector<std::unique_ptr<PlanStage>> children)
      : children_(std::move(children)) {}

  // The stage's own unit of work, which Work() counts.
  virtual StatusWith<WorkState> DoWork(PlanResult* out) = 0;
  // A stage that stands for its only child in explain (the replay of a chosen plan's results).
  virtual bool ExplainsAsChild() const { return false; }
  // Explain fields particular to the stage (a filter, a sort pattern, a limit).
  virtual void ExplainDetails(bson::DocumentBuilder*) const {}
  // Explain's counters particular to the stage (an index scan's seeks and dupsDropped).
  virtual void ExplainStats(bson::DocumentBuilder*) const {}
  // A leaf's part of the plan summary: its name, and an index scan's key pattern.
  virtual void AppendLeafSummary(std::string* out) const { out->append(name()); }

  PlanStage& child() { return *children_.front(); }
  PlanStage& child(std::size_t child_idx) { return *children_[child_idx]; }
  StageStats& mutable_stats() { return stats_; }

 private:
  std::vector<std::unique_ptr<PlanStage>> children_;
  StageStats stats_;
};

}  // namespace quarry::exec
