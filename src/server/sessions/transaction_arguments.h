// The generic arguments that make a command part of a multi-document transaction (`autocommit`,
// `startTransaction`, `txnNumber`, `lsid`), and what else mongod requires of such a command: a
// command allowed in transactions, a readConcern on the first command only, no writeConcern
// but on commitTransaction and abortTransaction.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"
#include "commands/command.h"
#include "server/sessions/transactions.h"

namespace quarry::server {

// Nullopt for a command outside any transaction. InvalidOptions (72) and
// OperationNotSupportedInTransaction (263) as mongod answers them. `session_id`: the lsid's id
// (empty without one); `write_concern_set`: the request gave a writeConcern.
StatusWith<std::optional<TransactionRequest>> ParseTransactionRequest(
    const bson::FieldTable& body, const commands::Command& command, std::string_view session_id,
    bool write_concern_set);

}  // namespace quarry::server
