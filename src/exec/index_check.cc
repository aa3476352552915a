#include "exec/index_check.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>

#include "bson/builder.h"
#include "bson/validate.h"
#include "catalog/catalog.h"
#include "exec/index_maintenance.h"
#include "storage/engine.h"
#include "storage/index_store.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

constexpr std::size_t kExamplesPerKind = 10;

// One entry a record should have: its key as IndexCursor::key() shows it, the record's id key,
// the key values it keeps (key_values.h) and, for a report, the key's values and the record's
// _id.
struct ExpectedEntry {
  std::string key;
  std::string id_key;
  std::string key_values;
  bson::Document key_value;
  bson::Document id;
};

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  return hex;
}

bson::Document IdOf(bson::DocumentView record) {
  bson::DocumentBuilder b;
  b.Append("_id", record.Get("_id"));
  return std::move(b).Finish();
}

class IndexChecker {
 public:
  IndexChecker(const ExecContext& ctx, const Collection& collection, std::size_t max_memory_bytes,
               CollectionCheck* out)
      : ctx_(ctx), collection_(collection), max_memory_bytes_(max_memory_bytes), out_(out) {}

  Status Check(const catalog::IndexInfo& index) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<ExpectedEntry> expected, ExpectedEntries(index));
    IndexCheckResult result{.name = std::string(index.name())};
    std::unique_ptr<storage::IndexCursor> cursor =
        ctx_.engine->indexes().Scan(index.id, storage::KeyRange{});
    auto next = expected.begin();
    for (; cursor->Valid(); cursor->Next()) {
      ++result.keys;
      while (next != expected.end() && next->key < cursor->key()) Missing(*next++, &result);
      // An entry may keep no key values (those written before entries kept them), but the
      // values it keeps must be its record's: covered reads return them.
      if (next != expected.end() && next->key == cursor->key() &&
          next->id_key == cursor->id_key() &&
          (cursor->key_values().empty() || cursor->key_values() == next->key_values)) {
        ++next;
        continue;
      }
      QUARRY_RETURN_IF_ERROR(Extra(*cursor, &result));
    }
    QUARRY_RETURN_IF_ERROR(cursor->status());
    while (next != expected.end()) Missing(*next++, &result);
    out_->indexes.push_back(std::move(result));
    return Status::OK();
  }

 private:
  // Every entry the records make for `index`, in the index's order.
  StatusWith<std::vector<ExpectedEntry>> ExpectedEntries(const catalog::IndexInfo& index) {
    std::vector<ExpectedEntry> expected;
    std::size_t bytes = 0;
    std::int64_t records = 0;
    std::unique_ptr<storage::RecordCursor> cursor =
        ctx_.engine->records().Scan(collection_.id, /*resume_after=*/{});
    for (; cursor->Valid(); cursor->Next()) {
      ++records;
      bson::DocumentView record = cursor->document();
      bool multikey = false;
      QUARRY_ASSIGN_OR_RETURN(storage::IndexChanges changes,
                              IndexChangesFor(index, {}, record, &multikey));
      for (storage::IndexEntry& entry : changes.added) {
        ExpectedEntry e{.key = std::move(entry.key),
                        .id_key = std::string(cursor->id_key()),
                        .key_values = std::move(entry.key_values),
                        .key_value = std::move(entry.key_value),
                        .id = IdOf(record)};
        if (entry.unique == nullptr) e.key += e.id_key;  // how non-unique entries are keyed
        bytes += e.key.size() + e.id_key.size() + e.key_values.size() + sizeof(ExpectedEntry);
        if (bytes > max_memory_bytes_) {
          return Status(ErrorCode::kExceededMemoryLimit,
                        "validate needs more than " + std::to_string(max_memory_bytes_ >> 20) +
                            " MB for the keys of index " + std::string(index.name()));
        }
        expected.push_back(std::move(e));
      }
    }
    QUARRY_RETURN_IF_ERROR(cursor->status());
    out_->records = records;
    std::ranges::sort(expected, {}, &ExpectedEntry::key);
    return expected;
  }

  void Missing(const ExpectedEntry& entry, IndexCheckResult* result) {
    ++result->missing;
    if (out_->missing_examples.size() >= kExamplesPerKind) return;
    bson::DocumentBuilder b;
    b.AppendDocument("key", entry.key_value.view());
    b.Append("_id", entry.id.view().Get("_id"));
    out_->missing_examples.push_back({result->name, std::move(b).Finish()});
  }

  Status Extra(const storage::IndexCursor& cursor, IndexCheckResult* result) {
    ++result->extra;
    if (out_->extra_examples.size() >= kExamplesPerKind) return Status::OK();
    QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> record,
                            ctx_.engine->records().FindByIdKey(collection_.id, cursor.id_key()));
    bson::DocumentBuilder b;
    b.AppendString("keyBytes", Hex(cursor.key()));
    if (record.has_value()) {
      b.Append("_id", record->view().Get("_id"));
    } else {
      b.AppendString("recordIdKey", Hex(cursor.id_key()));  // points to no record
    }
    out_->extra_examples.push_back({result->name, std::move(b).Finish()});
    return Status::OK();
  }

  const ExecContext& ctx_;
  const Collection& collection_;
  std::size_t max_memory_bytes_;
  CollectionCheck* out_;
};

}  // namespace

StatusWith<RecordConformance> CheckRecordConformance(const ExecContext& ctx,
                                                     const Collection& collection) {
  RecordConformance conformance;
  std::unique_ptr<storage::RecordCursor> cursor = ctx.engine->records().Scan(collection.id, {});
  for (; cursor->Valid(); cursor->Next()) {
    const std::string_view bytes = cursor->document().bytes();
    if (!bson::Validate(bytes.data(), bytes.size()).ok()) {
      ++conformance.invalid;
    } else if (!bson::ValidateUtf8(bytes.data(), bytes.size()).ok()) {
      ++conformance.non_compliant;
    }
  }
  QUARRY_RETURN_IF_ERROR(cursor->status());
  return conformance;
}

StatusWith<CollectionCheck> CheckIndexes(const ExecContext& ctx, const Collection& collection,
                                         std::size_t max_memory_bytes) {
  // Writers hold this lock shared from reading the specs until they commit; with it held here,
  // records and entries stay as they are, and the specs read below are current.
  QUARRY_ASSIGN_OR_RETURN(HeldCollection held, HoldWriters(*ctx.catalog, collection));
  const Collection& current = held.collection;
  CollectionCheck check;
  IndexChecker checker(ctx, current, max_memory_bytes, &check);
  bool counted = false;
  for (const catalog::IndexInfo& index : current.info->indexes) {
    if (index.is_id_index() || !index.ready) continue;
    QUARRY_RETURN_IF_ERROR(ctx.CheckForInterrupt());
    QUARRY_RETURN_IF_ERROR(checker.Check(index));
    counted = true;
  }
  if (!counted) {  // no secondary index: count the records alone
    std::unique_ptr<storage::RecordCursor> cursor = ctx.engine->records().Scan(collection.id, {});
    for (; cursor->Valid(); cursor->Next()) ++check.records;
    QUARRY_RETURN_IF_ERROR(cursor->status());
  }
  if (current.info->is_capped()) {
    QUARRY_ASSIGN_OR_RETURN(check.natural_order,
                            CheckNaturalOrder(*ctx.engine, *current.info, max_memory_bytes));
  }
  return check;
}

}  // namespace quarry::exec
