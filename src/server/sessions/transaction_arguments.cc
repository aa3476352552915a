#include "server/sessions/transaction_arguments.h"

#include <string_view>
#include <utility>

#include "bson/builder.h"

namespace quarry::server {
namespace {

Status InvalidOptions(std::string message) {
  return Status(ErrorCode::kInvalidOptions, std::move(message));
}

// The first command's readConcern may ask for what a transaction reads: its level must be one
// a transaction offers.
Status CheckReadConcern(bson::ValueView read_concern, bool start) {
  if (!read_concern.exists()) return Status::OK();
  if (!start) {
    return InvalidOptions("Only the first command in a transaction may specify a readConcern");
  }
  if (read_concern.type() != bson::Type::kDocument) return Status::OK();  // parsed later
  bson::ValueView level = read_concern.Document().Get("level");
  if (!level.exists()) return Status::OK();
  if (level.type() == bson::Type::kString &&
      (level.String() == "local" || level.String() == "majority" || level.String() == "snapshot")) {
    return Status::OK();
  }
  return InvalidOptions(
      "The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order "
      "to run in a transaction");
}

// The transaction's readConcern as mongod's currentOp shows it: the fields the first command
// gave, in mongod's order, and where they came from (provenance); without one, the implicit
// default, level local.
bson::Document ReportedReadConcern(bson::ValueView given) {
  bson::DocumentBuilder b;
  if (given.type() != bson::Type::kDocument) {
    b.AppendString("level", "local");
    b.AppendString("provenance", "implicitDefault");
    return std::move(b).Finish();
  }
  const bson::DocumentView spec = given.Document();
  bson::ValueView level = spec.Get("level");
  if (level.exists()) {
    b.Append("level", level);
  } else if (!spec.Has("afterClusterTime") && !spec.Has("atClusterTime")) {
    b.AppendString("level", "local");  // readConcern: {} takes the default level
  }
  for (std::string_view key : {"afterClusterTime", "atClusterTime"}) {
    bson::ValueView value = spec.Get(key);
    if (value.exists()) b.Append(key, value);
  }
  bson::ValueView provenance = spec.Get("provenance");
  if (provenance.exists()) {
    b.Append("provenance", provenance);
  } else {
    b.AppendString("provenance", "clientSupplied");
  }
  return std::move(b).Finish();
}

}  // namespace

StatusWith<std::optional<TransactionRequest>> ParseTransactionRequest(
    const bson::FieldTable& body, const commands::Command& command, std::string_view session_id,
    bool write_concern_set) {
  bson::ValueView autocommit = body.Get("autocommit");
  bson::ValueView start = body.Get("startTransaction");
  bson::ValueView txn_number = body.Get("txnNumber");
  if (!autocommit.exists()) {
    if (start.exists()) {
      return InvalidOptions(
          "'startTransaction' field requires 'autocommit' field to also be specified");
    }
    return std::optional<TransactionRequest>();
  }
  if (!txn_number.exists()) {
    return InvalidOptions("'autocommit' field requires a transaction number to also be specified");
  }
  if (session_id.empty()) {
    return InvalidOptions("Transaction number requires a session ID to also be specified");
  }
  if (txn_number.type() != bson::Type::kInt64) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'OperationSessionInfo.txnNumber' is the wrong type '" +
                      std::string(bson::TypeAlias(txn_number.type())) + "', expected type 'long'");
  }
  if (txn_number.Int64() < 0) return InvalidOptions("Transaction number cannot be negative");
  if (autocommit.type() != bson::Type::kBool) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'OperationSessionInfo.autocommit' is the wrong type '" +
                      std::string(bson::TypeAlias(autocommit.type())) + "', expected type 'bool'");
  }
  if (autocommit.Bool()) return InvalidOptions("Specifying autocommit=true is not allowed.");
  if (start.exists() && (start.type() != bson::Type::kBool || !start.Bool())) {
    return InvalidOptions("Specifying startTransaction=false is not allowed.");
  }
  if (!command.has(commands::kAllowedInTransaction)) {
    return Status(
        ErrorCode::kOperationNotSupportedInTransaction,
        "Cannot run '" + std::string(command.name) + "' in a multi-document transaction.");
  }
  TransactionRequest request;
  request.session_id = std::string(session_id);
  request.lsid = body.Get("lsid").Document();
  request.txn_number = txn_number.Int64();
  request.start = start.exists();
  request.command = command.name;
  request.commit = command.name == "commitTransaction";
  request.abort = command.name == "abortTransaction";
  if (write_concern_set && !request.commit && !request.abort) {
    return InvalidOptions("writeConcern is not allowed within a multi-statement transaction");
  }
  QUARRY_RETURN_IF_ERROR(CheckReadConcern(body.Get("readConcern"), request.start));
  if (request.start) {
    bson::ValueView read_concern = body.Get("readConcern");
    request.read_concern = ReportedReadConcern(read_concern);
    bson::ValueView level = read_concern.type() == bson::Type::kDocument
                                ? read_concern.Document().Get("level")
                                : bson::ValueView();
    request.reads_snapshot = level.type() == bson::Type::kString && level.String() == "snapshot";
  }
  return std::optional<TransactionRequest>(std::move(request));
}

}  // namespace quarry::server
