#include "exec/capped.h"

#include <unordered_map>

#include "base/endian.h"
#include "storage/record_store.h"

namespace quarry::exec {
namespace {

constexpr std::size_t kPositionBytes = 8;
// Evictions are committed in units of at most this many, so that a bulk insert far past the
// limits does not hold every evicted document in one unit.
constexpr std::size_t kMaxEvictionsPerUnit = 1000;

// The position after the last one `info`'s natural order holds (1 when it holds none).
StatusWith<std::int64_t> NextPosition(const storage::IndexStore& indexes,
                                      const catalog::CollectionInfo& info) {
  std::unique_ptr<storage::IndexCursor> last = indexes.Scan(
      info.natural_order_index, storage::KeyRange{}, storage::ScanDirection::kBackward);
  if (!last->Valid()) {
    QUARRY_RETURN_IF_ERROR(last->status());
    return std::int64_t{1};
  }
  if (last->key().size() < kPositionBytes) {
    return Status(ErrorCode::kInternalError, "corrupt natural-order entry of " + info.ns());
  }
  return static_cast<std::int64_t>(LoadBigEndian64(last->key().data())) + 1;
}

// The position key of the record whose id key is `id_key`, or empty when it has none.
StatusWith<std::string> PositionOf(const storage::IndexStore& indexes,
                                   const catalog::CollectionInfo& info, const std::string& id_key) {
  std::unique_ptr<storage::IndexCursor> entry = indexes.Scan(
      info.natural_position_index, storage::KeyRange{.lower = id_key, .upper = id_key});
  if (!entry->Valid()) {
    QUARRY_RETURN_IF_ERROR(entry->status());
    return std::string();
  }
  if (entry->key_values().size() != kPositionBytes) {
    return Status(ErrorCode::kInternalError, "corrupt natural-position entry of " + info.ns());
  }
  return std::string(entry->key_values());
}

}  // namespace

std::string NaturalPositionKey(std::int64_t position) {
  std::string key;
  AppendBigEndian64(static_cast<std::uint64_t>(position), &key);
  return key;
}

Status AppendNaturalOrderChanges(const storage::IndexStore& indexes,
                                 const catalog::CollectionInfo& info,
                                 const storage::WriteUnit::RecordChange& change,
                                 storage::IndexChanges* changes) {
  const bool insert = change.before.empty();
  const bool remove = change.after.empty();
  if (insert == remove) return Status::OK();  // an update keeps its place
  const bson::DocumentView doc = insert ? change.after : change.before;
  std::string id_key = storage::EncodeIdKey(doc.Get("_id"));
  std::string position;
  if (insert) {
    std::int64_t& next = info.locks->next_position;
    if (next < 0) {
      QUARRY_ASSIGN_OR_RETURN(next, NextPosition(indexes, info));
    }
    position = NaturalPositionKey(next++);
  } else {
    QUARRY_ASSIGN_OR_RETURN(position, PositionOf(indexes, info, id_key));
    if (position.empty()) return Status::OK();
  }
  std::vector<storage::IndexEntry>& entries = insert ? changes->added : changes->removed;
  storage::IndexEntry& by_position = entries.emplace_back();
  by_position.index = info.natural_order_index;
  by_position.key = position;
  storage::IndexEntry& by_id = entries.emplace_back();
  by_id.index = info.natural_position_index;
  by_id.key = std::move(id_key);
  by_id.key_values = std::move(position);
  return Status::OK();
}

StatusWith<std::vector<std::size_t>> AddEvictions(storage::Engine& engine,
                                                  const Collection& collection,
                                                  storage::WriteUnit* unit) {
  const catalog::CollectionInfo& info = *collection.info;
  const catalog::CappedLimits limits = info.capped_limits();
  const storage::RecordStore& records = engine.records();
  storage::CollectionStats stats = records.Stats(info.id);
  auto beyond_limits = [&] {
    return stats.data_bytes > limits.max_bytes ||
           (limits.max_documents > 0 && stats.count > limits.max_documents);
  };
  std::vector<std::size_t> evictions;
  if (!beyond_limits()) return evictions;
  std::unique_ptr<storage::IndexCursor> oldest =
      engine.indexes().Scan(info.natural_order_index, storage::KeyRange{});
  // The newest record stays, even alone beyond the limits, as mongod never evicts what the
  // write it follows inserted.
  for (; oldest->Valid() && beyond_limits() && stats.count > 1 &&
         evictions.size() < kMaxEvictionsPerUnit;
       oldest->Next()) {
    // A named StatusWith, not QUARRY_ASSIGN_OR_RETURN: GCC 12 under ASan takes the optional
    // moved out of a temporary for uninitialized.
    StatusWith<std::optional<bson::Document>> found =
        records.FindByIdKey(info.id, oldest->id_key());
    if (!found.ok()) return found.status();
    const std::optional<bson::Document>& doc = found.value();
    if (!doc.has_value()) continue;
    stats.count -= 1;
    stats.data_bytes -= static_cast<std::int64_t>(doc->view().size());
    evictions.push_back(unit->Delete(collection.ref(), *doc));
  }
  QUARRY_RETURN_IF_ERROR(oldest->status());
  return evictions;
}

StatusWith<NaturalOrderCheck> CheckNaturalOrder(storage::Engine& engine,
                                                const catalog::CollectionInfo& info,
                                                std::size_t max_memory_bytes) {
  NaturalOrderCheck check;
  // Each record's position by its id key, as the position index gives it.
  std::unordered_map<std::string, std::string> positions;
  std::size_t bytes = 0;
  std::unique_ptr<storage::IndexCursor> by_position =
      engine.indexes().Scan(info.natural_order_index, storage::KeyRange{});
  for (; by_position->Valid(); by_position->Next()) {
    ++check.positions;
    const std::string_view position = by_position->key().substr(0, kPositionBytes);
    auto [it, inserted] = positions.try_emplace(std::string(by_position->id_key()), position);
    if (!inserted) ++check.mismatched;
    bytes += it->first.size() + kPositionBytes + 64;
    if (bytes > max_memory_bytes) {
      return Status(ErrorCode::kExceededMemoryLimit,
                    "validate needs more than " + std::to_string(max_memory_bytes >> 20) +
                        " MB for the natural order of " + info.ns());
    }
  }
  QUARRY_RETURN_IF_ERROR(by_position->status());
  std::unique_ptr<storage::IndexCursor> by_id =
      engine.indexes().Scan(info.natural_position_index, storage::KeyRange{});
  std::int64_t by_id_entries = 0;
  for (; by_id->Valid(); by_id->Next()) {
    ++by_id_entries;
    auto it = positions.find(std::string(by_id->id_key()));
    if (it == positions.end() || it->second != by_id->key_values()) ++check.mismatched;
  }
  QUARRY_RETURN_IF_ERROR(by_id->status());
  if (by_id_entries != check.positions) ++check.mismatched;
  std::unique_ptr<storage::RecordCursor> records = engine.records().Scan(info.id, {});
  std::int64_t found = 0;
  for (; records->Valid(); records->Next()) {
    if (positions.contains(std::string(records->id_key()))) {
      ++found;
    } else {
      ++check.missing;
    }
  }
  QUARRY_RETURN_IF_ERROR(records->status());
  check.extra = static_cast<std::int64_t>(positions.size()) - found;
  return check;
}

}  // namespace quarry::exec
