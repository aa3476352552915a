// The operations running now and the connections they run on, for currentOp and killOp. server/
// lists each request for as long as it runs; handlers report an index build's progress and
// killOp interrupts an operation by its opid. Thread-safe: one mutex, taken once to list and once
// to unlist a request, so registration stays cheap on the network threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/interrupt.h"
#include "bson/value.h"
#include "commands/auth/user_name.h"

namespace quarry::commands {

enum class OpCounter : std::uint8_t;

// An index build's progress, as currentOp's `msg` and `progress` show it.
struct OperationProgress {
  std::string message;  // "Index Build: scanning collection"
  std::uint64_t done = 0;
  std::uint64_t total = 0;
};

// What the registry keeps of a running operation. `db` and `command` are views into the request,
// which server/ keeps alive until it unlists the operation.
struct RunningOperation {
  std::int32_t opid = 0;
  std::int64_t connection_id = 0;  // 0: not on a client connection
  std::string_view db;
  bson::DocumentView command;
  OpCounter counter{};
  std::chrono::steady_clock::time_point started;
  std::shared_ptr<Interrupt> interrupt;  // what killOp kills; never null
  std::optional<OperationProgress> progress;
  // The user the connection was authenticated as when the operation began (--auth only).
  std::optional<UserName> user;
  bool waiting_for_lock = false;  // a write held back by fsync's lock
  std::string session_key = {};   // its logical session (SessionKey(id, uid)); empty: none
};

// A client connection as currentOp describes it.
struct ClientConnection {
  std::int64_t id = 0;
  std::string remote;                              // "ip:port"
  std::shared_ptr<const bson::Document> metadata;  // hello's `client` document, if it sent one
  int running = 0;                                 // operations listed for it now
  std::optional<UserName> user;                    // who it is authenticated as (--auth)
};

class OperationRegistry {
 public:
  OperationRegistry() = default;
  OperationRegistry(const OperationRegistry&) = delete;
  OperationRegistry& operator=(const OperationRegistry&) = delete;

  // Lists a request until the returned handle is destroyed or Reset. Movable.
  class Listed {
   public:
    Listed() = default;
    Listed(Listed&& other) noexcept;
    Listed& operator=(Listed&& other) noexcept;
    ~Listed();
    void Reset();
    std::int32_t opid() const { return opid_; }

   private:
    friend class OperationRegistry;
    Listed(OperationRegistry* registry, std::int32_t opid) : registry_(registry), opid_(opid) {}
    OperationRegistry* registry_ = nullptr;
    std::int32_t opid_ = 0;
  };

  // Lists `operation` under a new opid (positive, unique among those listed, not reused for a long
  // while) and returns the handle that unlists it. `operation.opid` is ignored.
  Listed Begin(RunningOperation operation);

  // Makes killOp of `opid` kill `interrupt` instead (a getMore reads through the Interrupt of
  // the command that opened its cursor). No-op for an opid not listed.
  void SetInterrupt(std::int32_t opid, std::shared_ptr<Interrupt> interrupt);
  // Sets what currentOp reports as the operation's progress. No-op for an opid not listed.
  void SetProgress(std::int32_t opid, OperationProgress progress);
  // Sets what currentOp reports as waitingForLock. No-op for an opid not listed.
  void SetWaitingForLock(std::int32_t opid, bool waiting);
  // Sets the logical session currentOp shows as the operation's lsid. No-op for an opid not
  // listed.
  void SetSession(std::int32_t opid, std::string session_key);

  // killOp: interrupts operation `opid` with Interrupted (11601); it fails at its next check.
  // False when no operation has that opid.
  bool Kill(std::int32_t opid);
  // The server is stopping and will not wait longer: interrupts every listed operation with
  // InterruptedAtShutdown (11600), and every operation (or swapped-in Interrupt) listed from
  // now on as soon as it is. Returns how many were running.
  std::size_t KillAllForShutdown();
  // Whether operation `opid` is listed and was started by `user` (mongod lets a user kill its
  // own operations without the killop action).
  bool StartedBy(std::int32_t opid, const UserName& user) const;

  void Connect(std::int64_t id, std::string remote);
  // Keeps the `client` document of the connection's hello for currentOp's clientMetadata.
  void SetClientMetadata(std::int64_t id, bson::Document metadata);
  // Who connection `id` is authenticated as from now on (nullopt: nobody), for currentOp.
  void SetUser(std::int64_t id, std::optional<UserName> user);
  void Disconnect(std::int64_t id);
  // Connection `id` as listed now; nullopt once it disconnected.
  std::optional<ClientConnection> Connection(std::int64_t id) const;

  // Calls `visit` for each listed operation (by opid) with its connection (null when the
  // operation has none), then, when `idle_connections`, for each connection running nothing
  // (with a null operation). Holds the registry's lock meanwhile: `visit` must not call back.
  using Visitor =
      std::function<void(const RunningOperation* operation, const ClientConnection* connection)>;
  void ForEach(bool idle_connections, const Visitor& visit) const;

  std::size_t size() const;  // operations listed

 private:
  void End(std::int32_t opid);

  mutable std::mutex mu_;
  std::int32_t last_opid_ = 0;                            // guarded by mu_
  bool shutting_down_ = false;                            // guarded by mu_
  std::map<std::int32_t, RunningOperation> operations_;   // guarded by mu_
  std::map<std::int64_t, ClientConnection> connections_;  // guarded by mu_
};

}  // namespace quarry::commands
