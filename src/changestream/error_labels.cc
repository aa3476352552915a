// Change-stream error labels: the code lists of mongod's error_codes.yml categories that
// error_labels.cpp checks for change streams.
#include "changestream/error_labels.h"

#include <algorithm>
#include <iterator>

namespace quarry::changestream {
namespace {

// RetriableError, NetworkError and NeedRetargettingError members, RetryChangeStream and
// FailedToSatisfyReadPreference.
constexpr int kResumableCodes[] = {
    6,      // HostUnreachable
    7,      // HostNotFound
    63,     // StaleShardVersion
    89,     // NetworkTimeout
    91,     // ShutdownInProgress
    133,    // FailedToSatisfyReadPreference
    150,    // StaleEpoch
    189,    // PrimarySteppedDown
    234,    // RetryChangeStream
    262,    // ExceededTimeLimit
    9001,   // SocketException
    10107,  // NotWritablePrimary
    11600,  // InterruptedAtShutdown
    11602,  // InterruptedDueToReplStateChange
    13388,  // StaleConfig
    13435,  // NotPrimaryNoSecondaryOk
    13436,  // NotPrimaryOrSecondary
};

}  // namespace

std::optional<std::string_view> ChangeStreamErrorLabel(ErrorCode code,
                                                       bool has_write_concern_error) {
  const auto number = static_cast<int>(code);
  if (code == ErrorCode::kChangeStreamFatalError || code == ErrorCode::kChangeStreamHistoryLost ||
      IsInCategory(code, kNonResumable)) {
    return kNonResumableChangeStreamError;
  }
  if (has_write_concern_error) return std::nullopt;
  if (std::find(std::begin(kResumableCodes), std::end(kResumableCodes), number) !=
      std::end(kResumableCodes)) {
    return kResumableChangeStreamError;
  }
  return std::nullopt;
}

}  // namespace quarry::changestream
