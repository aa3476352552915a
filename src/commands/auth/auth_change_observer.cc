#include "commands/auth/auth_change_observer.h"

#include <string_view>

namespace quarry::commands {

void AuthChangeObserver::OnCommit(const storage::CommittedBatch& batch) {
  for (const storage::CommittedEntry& committed : batch.entries) {
    bson::ValueView ns = committed.entry.Get("ns");
    if (ns.type() != bson::Type::kString) continue;
    const std::string_view name = ns.String();
    if (name == "admin.system.users" || name == "admin.system.roles" || name == "admin.$cmd") {
      state_->Changed();
      return;
    }
  }
}

}  // namespace quarry::commands
