// TEXT_MATCH: a $text search through a text index. It reads the entries of each term the search
// looks for, adds up each document's scores (mongod's TEXT_OR), then hands up each document that
// passes the rest of the filter and what the index cannot decide (negations, phrases, case and
// diacritic sensitivity), with its score. Results come in record order.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "exec/index_catalog.h"
#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/index_store.h"
#include "storage/record_store.h"
#include "text/search.h"

namespace quarry::exec {

class TextMatch final : public PlanStage {
 public:
  struct Options {
    storage::CollectionId collection = 0;
    storage::IndexId index = 0;
    std::shared_ptr<const ParsedIndex> parsed;  // the text index
    text::AnalyzedSearch search;
    std::optional<query::Matcher> rest;  // the filter without its $text; none: nothing else
  };

  TextMatch(const storage::IndexStore* indexes, const storage::RecordStore* records,
            std::shared_ptr<const Interrupt> interrupt, Options options);

  std::string_view name() const override { return "TEXT_MATCH"; }
  void Save() override;
  Status Restore() override;

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  // Reads one entry of the current term's scan; moves to the next term at its end.
  Status ScanOne();
  void ExplainDetails(bson::DocumentBuilder* b) const override;

  const storage::IndexStore* indexes_;
  const storage::RecordStore* records_;
  std::shared_ptr<const Interrupt> interrupt_;
  Options options_;
  std::vector<std::string> terms_;
  std::size_t term_ = 0;  // the term being read; terms_.size() once all are
  std::unique_ptr<storage::IndexCursor> cursor_;
  std::string resume_after_;              // the last entry read, while the cursor is let go
  std::map<std::string, double> scores_;  // by record id key: record order
  std::map<std::string, double>::const_iterator next_;
  bool fetching_ = false;
};

}  // namespace quarry::exec
