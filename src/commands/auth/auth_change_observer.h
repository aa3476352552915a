// Watches the commits for writes to users and roles, so that a direct write to
// admin.system.users or admin.system.roles (insert, update, delete, drop, a restore) makes
// connected users' privileges stale as the user and role commands do.
#pragma once

#include "commands/auth/auth_state.h"
#include "storage/commit_pipeline.h"

namespace quarry::commands {

class AuthChangeObserver final : public storage::CommitObserver {
 public:
  // `state` must outlive the observer's registration.
  explicit AuthChangeObserver(AuthState* state) : state_(state) {}

  // Bumps AuthState::generation when the batch changes admin.system.users or
  // admin.system.roles, or runs a command on admin (a drop, a rename, dropDatabase).
  void OnCommit(const storage::CommittedBatch& batch) override;

 private:
  AuthState* state_;
};

}  // namespace quarry::commands
