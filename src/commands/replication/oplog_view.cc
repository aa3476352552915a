// local.oplog.rs' documents and the cursor that reads them.
#include "commands/replication/oplog_view.h"

#include <algorithm>
#include <limits>
#include <string>

#include "bson/builder.h"
#include "commands/replication/replica_set.h"
#include "storage/oplog.h"

namespace quarry::commands {
namespace {

// mongod's UUID subtype, as its entries carry `ui`.
constexpr std::uint8_t kUuidSubtype = 4;

// Entries a tailable cursor reads per batch before it answers, even with nothing: bounds the
// work of a batch whose filter matches little. A non-tailable batch reads on until it has a
// document or reaches the end, as drivers (pymongo among them) end iteration at an empty batch.
constexpr std::size_t kMaxEntriesPerTailableBatch = 10000;

}  // namespace

bson::Document MongodOplogEntry(const storage::OplogEntry& entry) {
  bson::DocumentBuilder b;
  b.AppendString("op", entry.op);
  std::string ns(entry.db);
  if (!entry.coll.empty()) ns += "." + std::string(entry.coll);
  b.AppendString("ns", ns);
  if (!entry.uuid.empty()) b.AppendBinary("ui", kUuidSubtype, entry.uuid);
  b.AppendDocument("o", entry.o);
  if (entry.o2.has_value()) {
    b.AppendDocument("o2", *entry.o2);
  } else if (entry.op == "i") {
    b.OpenDocument("o2").Append("_id", entry.o.Get("_id")).Close();
  }
  b.AppendTimestamp("ts", entry.ts);
  b.AppendInt64("t", kReplicaSetTerm);
  b.AppendInt64("v", 2);
  b.AppendDate("wall", entry.wall_ms);
  return std::move(b).Finish();
}

void BoundTimestamps(const query::Matcher& filter, OplogReadSpec* spec) {
  for (const query::PathCondition& condition : filter.Conjuncts()) {
    if (condition.path != "ts" || condition.value.type() != bson::Type::kTimestamp) continue;
    const storage::Timestamp ts = condition.value.Timestamp();
    switch (condition.op) {
      case query::CompareOp::kEq:
        spec->from = std::max(spec->from, ts);
        spec->through = std::min(spec->through, ts);
        break;
      case query::CompareOp::kGt:
        if (ts != std::numeric_limits<storage::Timestamp>::max()) {
          spec->from = std::max(spec->from, ts + 1);
        }
        break;
      case query::CompareOp::kGte:
        spec->from = std::max(spec->from, ts);
        break;
      case query::CompareOp::kLt:
        if (ts != 0) spec->through = std::min(spec->through, ts - 1);
        break;
      case query::CompareOp::kLte:
        spec->through = std::min(spec->through, ts);
        break;
      default:
        break;
    }
  }
}

OplogSource::OplogSource(storage::Oplog* oplog, OplogReadSpec spec)
    : oplog_(oplog), spec_(std::move(spec)), next_(spec_.backward ? spec_.through : spec_.from) {
  if (spec_.from > spec_.through) exhausted_ = !spec_.tailable;
}

StatusWith<query::Batch> OplogSource::NextBatch(std::size_t max_docs, std::size_t max_bytes) {
  query::Batch batch;
  if (exhausted_ || max_docs == 0) return batch;
  std::unique_ptr<storage::OplogCursor> cursor =
      spec_.backward ? oplog_->ScanBackward(next_) : oplog_->Scan(next_);
  std::size_t read = 0;
  bool reached_end = true;
  for (; cursor->Valid(); cursor->Next()) {
    const bool read_enough =
        read >= kMaxEntriesPerTailableBatch && (spec_.tailable || !batch.documents.empty());
    if (batch.documents.size() >= max_docs || read_enough) {
      reached_end = false;
      break;
    }
    const storage::Timestamp ts = cursor->ts();
    if (spec_.backward ? ts < spec_.from : ts > spec_.through) break;
    ++read;
    QUARRY_ASSIGN_OR_RETURN(storage::OplogEntry parsed, storage::ParseOplogEntry(cursor->entry()));
    bson::Document doc = MongodOplogEntry(parsed);
    // The next scan starts past this entry, whether or not it matches.
    last_read_ = std::max(last_read_, ts);
    if (spec_.backward) {
      if (ts == 0) {
        exhausted_ = true;
        return batch;
      }
      next_ = ts - 1;
    } else {
      next_ = ts + 1;
    }
    query::MatchDetails details;
    if (spec_.filter.has_value() && !spec_.filter->Matches(doc, &details)) continue;
    if (skipped_ < spec_.skip) {
      ++skipped_;
      continue;
    }
    if (spec_.projection.has_value()) {
      QUARRY_ASSIGN_OR_RETURN(doc, spec_.projection->Apply(doc, &details));
    }
    const std::size_t cost = doc.size() + query::BatchElementOverhead(batch.documents.size());
    if (!batch.documents.empty() && batch.bytes + cost > max_bytes) {
      next_ = ts;  // read again by the next batch, in either direction
      reached_end = false;
      break;
    }
    batch.bytes += doc.size();
    batch.documents.push_back(std::move(doc));
    ++returned_;
    if (spec_.limit > 0 && returned_ >= spec_.limit) {
      exhausted_ = true;
      return batch;
    }
  }
  QUARRY_RETURN_IF_ERROR(cursor->status());
  if (reached_end && !spec_.tailable) exhausted_ = true;
  return batch;
}

}  // namespace quarry::commands
