#include "commands/sessions/session_registry.h"

#include "commands/reply_util.h"

namespace quarry::commands {

void SessionRegistry::Touch(const std::string& id) {
  std::int64_t now = NowMillis();
  std::lock_guard lock(mu_);
  if (last_use_.size() >= kMaxSessions && last_use_.find(id) == last_use_.end()) return;
  last_use_[id] = now;
}

void SessionRegistry::End(const std::string& id) {
  std::lock_guard lock(mu_);
  last_use_.erase(id);
  last_write_.erase(id);
}

std::optional<bson::Document> SessionRegistry::RetryReply(const std::string& id,
                                                         std::int64_t txn_number) const {
  std::lock_guard lock(mu_);
  auto it = last_write_.find(id);
  if (it == last_write_.end() || it->second.txn_number != txn_number) return std::nullopt;
  return it->second.reply;
}

void SessionRegistry::RememberReply(const std::string& id, std::int64_t txn_number,
                                    bson::Document reply) {
  std::lock_guard lock(mu_);
  if (last_write_.size() >= kMaxSessions && last_write_.find(id) == last_write_.end()) return;
  last_write_[id] = LastWrite{txn_number, std::move(reply)};
}

std::vector<SessionRegistry::Entry> SessionRegistry::List() const {
  std::lock_guard lock(mu_);
  std::vector<Entry> entries;
  entries.reserve(last_use_.size());
  for (const auto& [id, last_use] : last_use_) entries.push_back({id, last_use});
  return entries;
}

}  // namespace quarry::commands
