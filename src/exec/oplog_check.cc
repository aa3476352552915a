#include "exec/oplog_check.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

#include "catalog/catalog.h"
#include "storage/engine.h"
#include "storage/oplog.h"
#include "storage/oplog_entry.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

constexpr std::size_t kMaxReportedErrors = 10;
// What a tracked record costs besides its key: the map's node and bucket.
constexpr std::size_t kBytesPerTracked = 64;
// Entries read with one RocksDB iterator before it is let go and a new one resumes.
constexpr std::int64_t kEntriesPerScan = 10000;

std::string TimestampText(storage::Timestamp ts) {
  return "Timestamp(" + std::to_string(storage::TimestampSeconds(ts)) + ", " +
         std::to_string(storage::TimestampIncrement(ts)) + ")";
}

std::uint64_t HashOf(bson::DocumentView doc) { return std::hash<std::string_view>()(doc.bytes()); }

// The newest change of one record that the oplog holds.
struct LastChange {
  storage::Timestamp ts = 0;
  bool present = false;    // after an insert or update; false after a delete
  std::uint64_t hash = 0;  // of the document it left
  std::string id_json;     // the record's _id, for a report
};

class OplogChecker {
 public:
  // Without a collection, it checks the entries alone.
  OplogChecker(const ExecContext& ctx, const Collection* collection, std::size_t max_memory_bytes)
      : ctx_(ctx), collection_(collection), max_memory_bytes_(max_memory_bytes) {}

  // Reads the entries after `after_` up to `through`.
  Status Read(storage::Timestamp through) {
    const storage::Oplog& oplog = ctx_.engine->oplog();
    bool more = true;
    while (more) {
      QUARRY_RETURN_IF_ERROR(ctx_.CheckForInterrupt());
      std::unique_ptr<storage::OplogCursor> cursor = oplog.Scan(after_ + 1);
      std::int64_t read = 0;
      for (; cursor->Valid() && cursor->ts() <= through; cursor->Next()) {
        Note(cursor->ts(), cursor->entry());
        if (++read == kEntriesPerScan) break;
      }
      QUARRY_RETURN_IF_ERROR(cursor->status());
      more = read == kEntriesPerScan;
    }
    return Status::OK();
  }

  // Compares each tracked record with the one stored now.
  Status CompareRecords() {
    if (gave_up_ || collection_ == nullptr) return Status::OK();
    for (const auto& [key, change] : last_) {
      QUARRY_RETURN_IF_ERROR(ctx_.CheckForInterrupt());
      QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> record,
                              ctx_.engine->records().FindByIdKey(collection_->id, key));
      ++out_.records_checked;
      const std::string where = " (its last oplog entry is " + TimestampText(change.ts) + ")";
      if (change.present && !record.has_value()) {
        Report("record with _id " + change.id_json + " is missing" + where);
      } else if (!change.present && record.has_value()) {
        Report("record with _id " + change.id_json + " exists after its delete" + where);
      } else if (change.present && HashOf(record->view()) != change.hash) {
        Report("record with _id " + change.id_json + " differs from its last change" + where);
      }
    }
    return Status::OK();
  }

  OplogCheck Take() { return std::move(out_); }

 private:
  void Note(storage::Timestamp ts, bson::DocumentView raw) {
    ++out_.entries;
    // Entries are keyed by timestamp, so one that does not come after the one before shares
    // its timestamp.
    if (ts <= after_) {
      Report("oplog entry " + TimestampText(ts) + " does not come after the one before it, " +
             TimestampText(after_));
    }
    after_ = std::max(after_, ts);
    StatusWith<storage::OplogEntry> parsed = storage::ParseOplogEntry(raw);
    if (!parsed.ok()) {
      Report("oplog entry " + TimestampText(ts) +
             " does not parse: " + std::string(parsed.status().reason()));
      return;
    }
    const storage::OplogEntry& entry = parsed.value();
    if (entry.ts != ts) {
      Report("oplog entry " + TimestampText(ts) + " carries another timestamp, " +
             TimestampText(entry.ts));
    }
    const bool record_change = entry.op == "i" || entry.op == "u" || entry.op == "d";
    if (!record_change && entry.op != "c" && entry.op != "n") {
      Report("oplog entry " + TimestampText(ts) + " has an unknown op '" + std::string(entry.op) +
             "'");
      return;
    }
    if (!record_change || collection_ == nullptr || entry.uuid != collection_->uuid || gave_up_) {
      return;
    }
    const bson::ValueView id = entry.DocumentId();
    if (!id.exists()) {
      Report("oplog entry " + TimestampText(ts) + " names no _id");
      return;
    }
    std::string key = storage::EncodeIdKey(id);
    LastChange change;
    change.ts = ts;
    change.present = entry.op != "d";
    if (change.present) change.hash = HashOf(entry.o);
    auto [it, added] = last_.try_emplace(std::move(key));
    if (added) {
      memory_ += it->first.size() + kBytesPerTracked;
      it->second.id_json = id.ToJson();
      memory_ += it->second.id_json.size();
    }
    change.id_json = std::move(it->second.id_json);
    it->second = std::move(change);
    if (memory_ > max_memory_bytes_) {
      gave_up_ = true;
      last_.clear();
      out_.warnings.push_back(
          "the oplog holds changes of more records than validate may keep in memory: records "
          "were not compared with it");
    }
  }

  void Report(std::string error) {
    if (out_.errors.size() < kMaxReportedErrors) out_.errors.push_back(std::move(error));
    ++out_.inconsistencies;
  }

  const ExecContext& ctx_;
  const Collection* collection_;
  const std::size_t max_memory_bytes_;
  storage::Timestamp after_ = 0;
  std::unordered_map<std::string, LastChange> last_;  // by the record's id key
  std::size_t memory_ = 0;
  bool gave_up_ = false;
  OplogCheck out_;
};

}  // namespace

StatusWith<OplogCheck> CheckOplog(const ExecContext& ctx, const Collection& collection,
                                  std::size_t max_memory_bytes) {
  OplogChecker checker(ctx, &collection, max_memory_bytes);
  // The long part, with writes going on: everything committed so far.
  QUARRY_RETURN_IF_ERROR(checker.Read(ctx.engine->oplog().LatestTimestamp()));
  // Writers of the collection hold this lock shared until they have committed: with it held,
  // its records stay as they are and the oplog's newest entry covers every change of them.
  QUARRY_ASSIGN_OR_RETURN(HeldCollection held, HoldWriters(*ctx.catalog, collection));
  QUARRY_RETURN_IF_ERROR(checker.Read(ctx.engine->oplog().LatestTimestamp()));
  QUARRY_RETURN_IF_ERROR(checker.CompareRecords());
  return checker.Take();
}

StatusWith<OplogCheck> CheckOplogEntries(const ExecContext& ctx) {
  OplogChecker checker(ctx, nullptr, 0);
  QUARRY_RETURN_IF_ERROR(checker.Read(ctx.engine->oplog().LatestTimestamp()));
  return checker.Take();
}

}  // namespace quarry::exec
