#include "commands/diagnostics/transaction_report.h"

#include <cstdio>
#include <ctime>

namespace quarry::commands {

std::string FormatOpTime(std::int64_t wall_ms) {
  const std::time_t seconds = static_cast<std::time_t>(wall_ms / 1000);
  const int millis = static_cast<int>(wall_ms % 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03d+00:00", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

void AppendLsid(bson::DocumentBuilder* b, std::string_view session_key) {
  b->OpenDocument("lsid")
      .AppendBinary("id", 4, SessionIdOfKey(session_key))
      .AppendBinary("uid", 0, SessionUidOfKey(session_key))
      .Close();
}

void AppendTransaction(bson::DocumentBuilder* b, const OpenTransaction& txn) {
  b->OpenDocument("transaction");
  // Drivers never retry a transaction under the same number, so its retry counter stays 0.
  b->OpenDocument("parameters")
      .AppendInt64("txnNumber", txn.txn_number)
      .AppendInt32("txnRetryCounter", 0)
      .AppendBool("autocommit", false)
      .AppendDocument("readConcern", txn.read_concern)
      .Close();
  b->AppendTimestamp("readTimestamp", txn.read_timestamp);
  b->AppendString("startWallClockTime", FormatOpTime(txn.start_wall_ms));
  b->AppendInt64("timeOpenMicros", txn.open_micros);
  b->AppendInt64("timeActiveMicros", txn.active_micros);
  b->AppendInt64("timeInactiveMicros", txn.open_micros - txn.active_micros);
  b->AppendString("expiryTime", FormatOpTime(txn.expiry_wall_ms));
  b->Close();
}

void AppendRetryableWriteTransaction(bson::DocumentBuilder* b, std::int64_t txn_number) {
  b->OpenDocument("transaction")
      .OpenDocument("parameters")
      .AppendInt64("txnNumber", txn_number)
      .Close()
      .Close();
}

bson::Document IdleSessionDocument(const ServiceState& state, const OpenTransaction& txn) {
  const ClientConnection& client = txn.last_client;
  bson::DocumentBuilder b;
  b.AppendString("type", "idleSession");
  b.AppendString("host", state.host_name + ":" + std::to_string(state.config.port));
  b.AppendString("desc", "inactive transaction");
  b.AppendString("client", client.remote);
  b.AppendInt64("connectionId", client.id);
  // mongod shows both even when the client sent no metadata: "" and {}.
  std::string_view app_name;
  if (client.metadata != nullptr) {
    bson::ValueView application = client.metadata->Get("application");
    if (application.type() == bson::Type::kDocument) {
      bson::ValueView name = application.Document().Get("name");
      if (name.type() == bson::Type::kString) app_name = name.String();
    }
  }
  b.AppendString("appName", app_name);
  if (client.metadata != nullptr) {
    b.AppendDocument("clientMetadata", client.metadata->view());
  } else {
    b.OpenDocument("clientMetadata").Close();
  }
  AppendLsid(&b, txn.session_key);
  AppendTransaction(&b, txn);
  b.AppendBool("waitingForLock", false);
  b.AppendBool("active", false);
  b.OpenDocument("locks").Close();
  return std::move(b).Finish();
}

}  // namespace quarry::commands
