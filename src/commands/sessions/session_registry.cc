#include "commands/sessions/session_registry.h"

#include <utility>

#include "base/log.h"
#include "bson/builder.h"
#include "base/clock.h"
#include "storage/engine.h"
#include "storage/write_unit.h"

namespace quarry::commands {
namespace {

// Meta names: "session/" + the lsid's 16 bytes. Value: {txn: Long, at: Date, reply: {...}}.
constexpr std::string_view kRecordPrefix = "session/";
constexpr std::int64_t kSessionTimeoutMs = 30 * 60 * 1000;  // hello's logicalSessionTimeoutMinutes

std::string RecordName(const std::string& id) { return std::string(kRecordPrefix) + id; }

}  // namespace

Status SessionRegistry::Attach(storage::Engine* engine) {
  QUARRY_ASSIGN_OR_RETURN(auto records, engine->meta().List(kRecordPrefix));
  const std::int64_t now = NowMillis();
  storage::WriteUnit expired;
  std::lock_guard lock(mu_);
  engine_ = engine;
  for (auto& [name, value] : records) {
    bson::DocumentView record(value.data());
    bson::ValueView txn = record.Get("txn");
    bson::ValueView at = record.Get("at");
    bson::ValueView reply = record.Get("reply");
    const bool usable = txn.type() == bson::Type::kInt64 && at.type() == bson::Type::kDate &&
                        reply.type() == bson::Type::kDocument &&
                        now - at.Date() <= kSessionTimeoutMs;
    if (!usable) {
      expired.DeleteMeta(std::move(name));
      continue;
    }
    std::string id = name.substr(kRecordPrefix.size());
    last_use_[id] = at.Date();
    last_write_[id] = LastWrite{txn.Int64(), bson::Document::Copy(reply.Document())};
  }
  if (expired.empty()) return Status::OK();
  auto committed = engine->pipeline().Commit(std::move(expired), storage::CommitOptions{});
  return committed.ok() ? Status::OK() : committed.status();
}

void SessionRegistry::Touch(const std::string& id) {
  std::int64_t now = NowMillis();
  std::lock_guard lock(mu_);
  if (last_use_.size() >= kMaxSessions && last_use_.find(id) == last_use_.end()) return;
  last_use_[id] = now;
}

void SessionRegistry::End(const std::string& id) {
  bool stored = false;
  {
    std::lock_guard lock(mu_);
    last_use_.erase(id);
    stored = last_write_.erase(id) > 0 && engine_ != nullptr;
  }
  if (!stored) return;
  storage::WriteUnit unit;
  unit.DeleteMeta(RecordName(id));
  Store(std::move(unit), storage::Durability::kNone);
}

std::optional<bson::Document> SessionRegistry::RetryReply(const std::string& id,
                                                         std::int64_t txn_number) const {
  std::lock_guard lock(mu_);
  auto it = last_write_.find(id);
  if (it == last_write_.end() || it->second.txn_number != txn_number) return std::nullopt;
  return it->second.reply;
}

void SessionRegistry::RememberReply(const std::string& id, std::int64_t txn_number,
                                    bson::Document reply, storage::Durability durability) {
  storage::WriteUnit unit;
  {
    std::lock_guard lock(mu_);
    if (last_write_.size() >= kMaxSessions && last_write_.find(id) == last_write_.end()) return;
    if (engine_ != nullptr) {
      bson::DocumentBuilder record(reply.bytes().size() + 64);
      record.AppendInt64("txn", txn_number);
      record.AppendDate("at", NowMillis());
      record.AppendDocument("reply", reply);
      unit.PutMeta(RecordName(id), std::move(record).FinishBytes());
    }
    last_write_[id] = LastWrite{txn_number, std::move(reply)};
  }
  if (!unit.empty()) Store(std::move(unit), durability);
}

void SessionRegistry::Store(storage::WriteUnit unit, storage::Durability durability) {
  storage::CommitOptions options;
  options.durability = durability;
  auto committed = engine_->pipeline().Commit(std::move(unit), options);
  Status status = committed.ok() ? committed.value().sync_status : committed.status();
  if (committed.ok() && !committed.value().errors.empty()) status = committed.value().errors[0].status;
  if (!status.ok()) {
    // The write it answers succeeded; only a retry across a restart would miss this record.
    log::Write(log::Severity::kWarning, "COMMAND", 5531900, "", "Could not store a retryable write's reply",
               {{"error", status.ToString()}});
  }
}

std::vector<SessionRegistry::Entry> SessionRegistry::List() const {
  std::lock_guard lock(mu_);
  std::vector<Entry> entries;
  entries.reserve(last_use_.size());
  for (const auto& [id, last_use] : last_use_) entries.push_back({id, last_use});
  return entries;
}

}  // namespace quarry::commands
