// A command's descriptor and the decoded request it runs on. The descriptor is data that
// server/ acts on (flags decide write-concern handling, compression, OP_QUERY admission);
// handlers only parse their arguments, act, and build the reply body.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/privilege.h"
#include "base/status.h"
#include "bson/field_table.h"
#include "bson/value.h"
#include "commands/service_state.h"

namespace quarry::commands {

class CommandContext;

// A kind-1 OP_MSG section: the array field `identifier` of the command, sent out of line.
struct DocumentSequenceView {
  std::string_view identifier;
  const std::vector<bson::DocumentView>* documents;
};

struct Request {
  std::string_view name;  // the first key of the body, as sent
  std::string db;         // $db (or the OP_QUERY namespace's database)
  bson::DocumentView body;
  // The body's fields, when dispatch walked them into a table (null otherwise): Field and
  // HasAnyField then look there instead of walking the body.
  const bson::FieldTable* fields = nullptr;
  std::vector<DocumentSequenceView> sequences;
  // Levels of nesting of the message's deepest document, as the wire's validation found them;
  // unknown (the most) for a request that did not come from the wire. A document of a message
  // no deeper than a limit needs no walk of its own to check it.
  int deepest_nesting = std::numeric_limits<int>::max();

  // The documents of array field `field`: from a document sequence if one has that identifier,
  // else from the body's array. Fails with kTypeMismatch if the body's field is not an array.
  StatusWith<std::vector<bson::DocumentView>> Documents(std::string_view field) const;

  bson::ValueView Field(std::string_view key) const {
    return fields != nullptr ? fields->Get(key) : body.Get(key);
  }
  bool HasAnyField(std::initializer_list<std::string_view> keys) const {
    return fields != nullptr ? fields->HasAnyOf(keys) : body.HasAnyOf(keys);
  }
};

enum CommandFlag : unsigned {
  kNoFlags = 0,
  kAllowedOverOpQuery = 1u << 0,  // handshake and auth commands mongod accepts in OP_QUERY
  kNeverCompressReply = 1u << 1,  // handshake and auth replies go out uncompressed
  kWritesData = 1u << 2,          // honours writeConcern, counts as a write for getLastError
  kAdminOnly = 1u << 3,           // must be run against the admin database
  kRetryableWrite = 1u << 4,      // with lsid and txnNumber, a retry never applies twice
  kIgnoresFailCommand = 1u << 5,  // configureFailPoint itself: failCommand never hits it
  kWaitsByDesign = 1u << 6,       // a getMore waits for events: not a slow operation
  // With --auth and no user yet, a localhost client may run it on admin unauthenticated (the
  // localhost exception: createUser, createRole).
  kLocalhostException = 1u << 7,
  // May run in a multi-document transaction (mongod's list); others answer 263 there.
  kAllowedInTransaction = 1u << 8,
  // Changes stored data without being a write command (catalog, indexes, users, roles): it
  // waits while fsync's lock holds writes, as kWritesData commands do.
  kChangesStoredData = 1u << 9,
};

// Calls, failures and time of one command, as serverStatus' metrics.commands shows them.
// Dispatch updates them; any thread reads them.
struct CommandCounters {
  std::atomic<std::int64_t> total{0};
  std::atomic<std::int64_t> failed{0};
  std::atomic<std::int64_t> micros{0};
};

// Which of serverStatus' opLatencies a command counts under: reads, writes or commands.
enum class LatencyClass : std::uint8_t { kByCounter, kRead, kWrite, kCommand };

using RunFunction = StatusWith<bson::Document> (*)(CommandContext& ctx, const Request& request);

class Authorizer;
// Whether the connection's user may run `request` (a command whose needs depend on its
// arguments: a pipeline's stages, the roles a user is granted).
using AuthorizeFunction = bool (*)(const Authorizer& authorizer, const Request& request);

// What a command needs with --auth, checked by server/ before it runs. Every command declares
// it: the registry refuses a command without one (CommandRegistry::CheckDeclarations).
struct Authorization {
  enum class Scope : std::uint8_t {
    kUndeclared,
    kOpen,       // no authentication: handshake, ping, saslStart, logout...
    kAnyUser,    // any authenticated user (getMore: the cursor's owner is checked by it)
    kNamespace,  // `actions` on <db>.<the command's first value>
    kDatabase,   // `actions` on the request's database
    kCluster,    // `actions` on the cluster
    kCustom,     // `check` decides
  };
  Scope scope = Scope::kUndeclared;
  auth::ActionSet actions = {};
  AuthorizeFunction check = nullptr;
};

inline Authorization OpenToAll() { return {.scope = Authorization::Scope::kOpen}; }
inline Authorization AnyUser() { return {.scope = Authorization::Scope::kAnyUser}; }
inline Authorization OnNamespace(auth::ActionSet actions) {
  return {.scope = Authorization::Scope::kNamespace, .actions = actions};
}
inline Authorization OnDatabase(auth::ActionSet actions) {
  return {.scope = Authorization::Scope::kDatabase, .actions = actions};
}
inline Authorization OnCluster(auth::ActionSet actions) {
  return {.scope = Authorization::Scope::kCluster, .actions = actions};
}
inline Authorization Custom(AuthorizeFunction check) {
  return {.scope = Authorization::Scope::kCustom, .check = check};
}

struct Command {
  std::string_view name;
  unsigned flags = kNoFlags;
  RunFunction run = nullptr;
  std::vector<std::string_view> aliases = {};  // e.g. "ismaster", "buildinfo"
  OpCounter counter = OpCounter::kCommand;     // the opcounter it counts under
  // kByCounter: reads for kQuery and kGetMore, writes for kInsert, kUpdate and kDelete, else
  // commands.
  LatencyClass latency = LatencyClass::kByCounter;
  Authorization auth = {};  // required: see Authorization

  bool has(CommandFlag flag) const { return (flags & flag) != 0; }
};

// Runs `command`'s handler and fills ctx.stats() with what its plans did on this thread.
StatusWith<bson::Document> RunCommand(const Command& command, CommandContext& ctx,
                                      const Request& request);

class CommandRegistry {
 public:
  void Add(Command command);
  // The command named `name` (aliases included), or nullptr.
  const Command* Find(std::string_view name) const;
  // Every registered command once, by name.
  std::vector<const Command*> All() const;
  // The counters of a registered command.
  CommandCounters& counters(const Command* command) const;
  // Fails with InternalError naming every command registered without an Authorization (or
  // with a kNamespace/kDatabase/kCluster one without actions, or kCustom without a check).
  // quarryd refuses to start on it.
  Status CheckDeclarations() const;

 private:
  struct Entry {
    Command command;
    std::unique_ptr<CommandCounters> counters = std::make_unique<CommandCounters>();
  };
  std::vector<std::unique_ptr<Entry>> entries_;  // stable addresses: Find hands out pointers
  std::unordered_map<std::string_view, const Entry*> by_name_;  // names and aliases
  std::unordered_map<const Command*, CommandCounters*> counters_;
};

}  // namespace quarry::commands
