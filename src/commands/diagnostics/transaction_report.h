// What currentOp shows of logical sessions and multi-document transactions, in mongod's shape:
// an operation's `lsid`, its `transaction` sub-document, and the entry of a transaction that no
// command runs in now (an idle session).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bson/builder.h"
#include "bson/value.h"
#include "commands/service_state.h"
#include "commands/session_control.h"

namespace quarry::commands {

// mongod's Date_t::toString(): ISO 8601 with milliseconds and an explicit UTC offset.
std::string FormatOpTime(std::int64_t wall_ms);

// lsid: {id: UUID, uid: the digest of the session's user}.
void AppendLsid(bson::DocumentBuilder* b, std::string_view session_key);

// transaction: {parameters: {txnNumber, txnRetryCounter, autocommit, readConcern},
// readTimestamp, startWallClockTime, timeOpenMicros, timeActiveMicros, timeInactiveMicros,
// expiryTime}.
void AppendTransaction(bson::DocumentBuilder* b, const OpenTransaction& txn);

// A retryable write's: transaction: {parameters: {txnNumber}}.
void AppendRetryableWriteTransaction(bson::DocumentBuilder* b, std::int64_t txn_number);

// The entry of an open transaction that no command runs in: type "idleSession", desc
// "inactive transaction", the connection of its latest command, its lsid and transaction.
bson::Document IdleSessionDocument(const ServiceState& state, const OpenTransaction& txn);

}  // namespace quarry::commands
