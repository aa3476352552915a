#include "commands/operation_registry.h"

#include <limits>
#include <utility>

namespace quarry::commands {

OperationRegistry::Listed::Listed(Listed&& other) noexcept
    : registry_(std::exchange(other.registry_, nullptr)), opid_(std::exchange(other.opid_, 0)) {}

OperationRegistry::Listed& OperationRegistry::Listed::operator=(Listed&& other) noexcept {
  if (this != &other) {
    Reset();
    registry_ = std::exchange(other.registry_, nullptr);
    opid_ = std::exchange(other.opid_, 0);
  }
  return *this;
}

OperationRegistry::Listed::~Listed() { Reset(); }

void OperationRegistry::Listed::Reset() {
  if (registry_ != nullptr) registry_->End(opid_);
  registry_ = nullptr;
  opid_ = 0;
}

OperationRegistry::Listed OperationRegistry::Begin(RunningOperation operation) {
  std::lock_guard lock(mu_);
  // mongod's opids are 32-bit; after the largest, numbering starts again at 1, skipping any
  // still listed.
  do {
    last_opid_ = last_opid_ == std::numeric_limits<std::int32_t>::max() ? 1 : last_opid_ + 1;
  } while (operations_.contains(last_opid_));
  operation.opid = last_opid_;
  if (shutting_down_) operation.interrupt->Kill(ErrorCode::kInterruptedAtShutdown);
  if (operation.connection_id != 0) {
    auto connection = connections_.find(operation.connection_id);
    if (connection != connections_.end()) ++connection->second.running;
  }
  operations_.emplace(last_opid_, std::move(operation));
  return Listed(this, last_opid_);
}

void OperationRegistry::End(std::int32_t opid) {
  std::lock_guard lock(mu_);
  auto it = operations_.find(opid);
  if (it == operations_.end()) return;
  auto connection = connections_.find(it->second.connection_id);
  if (connection != connections_.end()) --connection->second.running;
  operations_.erase(it);
}

void OperationRegistry::SetInterrupt(std::int32_t opid, std::shared_ptr<Interrupt> interrupt) {
  if (interrupt == nullptr) return;
  std::lock_guard lock(mu_);
  if (shutting_down_) interrupt->Kill(ErrorCode::kInterruptedAtShutdown);
  auto it = operations_.find(opid);
  if (it != operations_.end()) it->second.interrupt = std::move(interrupt);
}

void OperationRegistry::SetProgress(std::int32_t opid, OperationProgress progress) {
  std::lock_guard lock(mu_);
  auto it = operations_.find(opid);
  if (it != operations_.end()) it->second.progress = std::move(progress);
}

void OperationRegistry::SetWaitingForLock(std::int32_t opid, bool waiting) {
  std::lock_guard lock(mu_);
  auto it = operations_.find(opid);
  if (it != operations_.end()) it->second.waiting_for_lock = waiting;
}

void OperationRegistry::SetSession(std::int32_t opid, std::string session_key) {
  std::lock_guard lock(mu_);
  auto it = operations_.find(opid);
  if (it != operations_.end()) it->second.session_key = std::move(session_key);
}

bool OperationRegistry::Kill(std::int32_t opid) {
  std::lock_guard lock(mu_);
  auto it = operations_.find(opid);
  if (it == operations_.end()) return false;
  it->second.interrupt->Kill(ErrorCode::kInterrupted);
  return true;
}

std::size_t OperationRegistry::KillAllForShutdown() {
  std::lock_guard lock(mu_);
  shutting_down_ = true;
  for (auto& [opid, operation] : operations_) {
    operation.interrupt->Kill(ErrorCode::kInterruptedAtShutdown);
  }
  return operations_.size();
}

bool OperationRegistry::StartedBy(std::int32_t opid, const UserName& user) const {
  std::lock_guard lock(mu_);
  auto it = operations_.find(opid);
  return it != operations_.end() && it->second.user == user;
}

void OperationRegistry::Connect(std::int64_t id, std::string remote) {
  std::lock_guard lock(mu_);
  ClientConnection& connection = connections_[id];
  connection.id = id;
  connection.remote = std::move(remote);
}

void OperationRegistry::SetClientMetadata(std::int64_t id, bson::Document metadata) {
  auto shared = std::make_shared<const bson::Document>(std::move(metadata));
  std::lock_guard lock(mu_);
  auto it = connections_.find(id);
  if (it != connections_.end()) it->second.metadata = std::move(shared);
}

void OperationRegistry::SetUser(std::int64_t id, std::optional<UserName> user) {
  std::lock_guard lock(mu_);
  auto it = connections_.find(id);
  if (it != connections_.end()) it->second.user = std::move(user);
}

void OperationRegistry::Disconnect(std::int64_t id) {
  std::lock_guard lock(mu_);
  connections_.erase(id);
}

std::optional<ClientConnection> OperationRegistry::Connection(std::int64_t id) const {
  std::lock_guard lock(mu_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return std::nullopt;
  return it->second;
}

void OperationRegistry::ForEach(bool idle_connections, const Visitor& visit) const {
  std::lock_guard lock(mu_);
  for (const auto& [opid, operation] : operations_) {
    auto connection = connections_.find(operation.connection_id);
    visit(&operation, connection == connections_.end() ? nullptr : &connection->second);
  }
  if (!idle_connections) return;
  for (const auto& [id, connection] : connections_) {
    if (connection.running == 0) visit(nullptr, &connection);
  }
}

std::size_t OperationRegistry::size() const {
  std::lock_guard lock(mu_);
  return operations_.size();
}

}  // namespace quarry::commands
