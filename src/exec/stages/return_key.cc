#include "exec/stages/return_key.h"

#include <optional>

#include "bson/builder.h"
#include "exec/stages/show_record_id.h"

namespace quarry::exec {
namespace {

bool InBounds(const IndexBounds& bounds, const std::string& key) {
  for (const KeyInterval& interval : bounds.intervals) {
    if (interval.Contains(key)) return true;
  }
  return false;
}

// The key a scan first met `doc` under: of the document's keys (sorted, in index order) inside
// the scan's bounds, the first in the scan's direction. The scan dropped the document's later
// entries as repeats.
StatusWith<std::optional<bson::Document>> KeyFrom(const IndexScan& scan, bson::DocumentView doc) {
  const IndexScanOptions& options = scan.options();
  QUARRY_ASSIGN_OR_RETURN(std::vector<IndexKey> keys,
                          options.parsed->descriptor.KeysOf(doc, /*with_values=*/true));
  const bool forward = options.direction == storage::ScanDirection::kForward;
  for (std::size_t key_idx = 0; key_idx < keys.size(); ++key_idx) {
    IndexKey& key = keys[forward ? key_idx : keys.size() - 1 - key_idx];
    if (InBounds(options.bounds, key.encoded)) return std::optional(std::move(key.values));
  }
  return std::optional<bson::Document>();
}

}  // namespace

StatusWith<bson::Document> ReturnKeyStage::KeyOf(bson::DocumentView doc) const {
  if (by_id_) {
    bson::DocumentBuilder b;
    b.Append("_id", doc.Get("_id"));
    return std::move(b).Finish();
  }
  // Under an OR, the first scan (in reading order) that holds the document handed it up.
  for (const IndexScan* scan : scans_) {
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> key, KeyFrom(*scan, doc));
    if (key.has_value()) return std::move(*key);
  }
  return bson::Document();  // a collection scan, or a record changed since its entry was read
}

StatusWith<WorkState> ReturnKeyStage::DoWork(PlanResult* out) {
  QUARRY_ASSIGN_OR_RETURN(WorkState state, child().Work(out));
  if (state != WorkState::kAdvanced) return state;
  QUARRY_ASSIGN_OR_RETURN(bson::Document key, KeyOf(out->doc));
  if (show_record_id_) key = WithRecordId(key.view(), RecordIdOf(out->doc));
  out->Own(std::move(key));
  return WorkState::kAdvanced;
}

}  // namespace quarry::exec
