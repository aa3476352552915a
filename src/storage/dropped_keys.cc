#include "storage/dropped_keys.h"

#include <rocksdb/compaction_filter.h>
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <mutex>
#include <utility>

#include "base/endian.h"

namespace quarry::storage::internal {
namespace {

constexpr std::size_t kIdBytes = 8;

class DroppedKeyFilter final : public rocksdb::CompactionFilter {
 public:
  explicit DroppedKeyFilter(std::vector<std::uint64_t> ids) : ids_(std::move(ids)) {}

  const char* Name() const override { return "quarry.DroppedKeyFilter"; }

  bool Filter(int /*level*/, const rocksdb::Slice& key, const rocksdb::Slice& /*value*/,
              std::string* /*new_value*/, bool* /*value_changed*/) const override {
    return key.size() >= kIdBytes &&
           std::binary_search(ids_.begin(), ids_.end(), LoadBigEndian64(key.data()));
  }

 private:
  const std::vector<std::uint64_t> ids_;
};

class DroppedKeyFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  explicit DroppedKeyFilterFactory(std::shared_ptr<const DroppedKeys> keys)
      : keys_(std::move(keys)) {}

  const char* Name() const override { return "quarry.DroppedKeyFilterFactory"; }

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    std::vector<std::uint64_t> ids = keys_->Reclaiming();
    if (ids.empty()) return nullptr;
    return std::make_unique<DroppedKeyFilter>(std::move(ids));
  }

 private:
  const std::shared_ptr<const DroppedKeys> keys_;
};

}  // namespace

void DroppedKeys::Drop(std::uint64_t id, std::uint64_t sequence) {
  std::unique_lock lock(mu_);
  drops_.insert_or_assign(id, Entry{.sequence = sequence});
  any_.store(true);
}

void DroppedKeys::StartReclaiming(std::uint64_t id) {
  std::unique_lock lock(mu_);
  auto it = drops_.find(id);
  if (it != drops_.end()) it->second.reclaiming = true;
}

void DroppedKeys::Forget(std::uint64_t id) {
  std::unique_lock lock(mu_);
  drops_.erase(id);
  any_.store(!drops_.empty());
}

bool DroppedKeys::Hides(std::string_view key, const rocksdb::Snapshot* snapshot) const {
  if (!any_.load(std::memory_order_relaxed) || key.size() < kIdBytes) return false;
  std::shared_lock lock(mu_);
  auto it = drops_.find(LoadBigEndian64(key.data()));
  if (it == drops_.end()) return false;
  return snapshot == nullptr || it->second.sequence <= snapshot->GetSequenceNumber();
}

std::vector<std::uint64_t> DroppedKeys::Reclaiming() const {
  std::vector<std::uint64_t> ids;
  std::shared_lock lock(mu_);
  for (const auto& [id, drop] : drops_) {
    if (drop.reclaiming) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::shared_ptr<rocksdb::CompactionFilterFactory> NewDroppedKeyFilterFactory(
    std::shared_ptr<const DroppedKeys> keys) {
  return std::make_shared<DroppedKeyFilterFactory>(std::move(keys));
}

}  // namespace quarry::storage::internal
