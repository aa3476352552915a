// IDHACK: the one record whose _id equals a value, read with a point lookup (records are
// clustered by _id), then checked against the rest of the filter.
#pragma once

#include <optional>
#include <string>

#include "exec/stages/plan_stage.h"
#include "query/match/matcher.h"
#include "storage/record_store.h"

namespace quarry::exec {

class IdHack final : public PlanStage {
 public:
  // `id_key`: the encoded _id (storage::EncodeIdKey).
  IdHack(const storage::RecordStore* records, storage::CollectionId collection, std::string id_key,
         std::optional<query::Matcher> filter, bool want_match_details);

  std::string_view name() const override { return "IDHACK"; }

 private:
  StatusWith<WorkState> DoWork(PlanResult* out) override;
  void ExplainDetails(bson::DocumentBuilder* b) const override;

  const storage::RecordStore* records_;
  storage::CollectionId collection_;
  std::string id_key_;
  std::optional<query::Matcher> filter_;
  bool want_match_details_;
  bool done_ = false;
};

}  // namespace quarry::exec
