// Which error label a failed change-stream command carries (mongod's error_labels.cpp), so that
// drivers resume after transient errors and give up after fatal ones.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"

namespace quarry::changestream {

inline constexpr std::string_view kResumableChangeStreamError = "ResumableChangeStreamError";
inline constexpr std::string_view kNonResumableChangeStreamError = "NonResumableChangeStreamError";

// The label for an error returned by an aggregate or getMore on a change-stream cursor:
// ResumableChangeStreamError for mongod's RetriableError, NetworkError and NeedRetargettingError
// categories plus RetryChangeStream (234) and FailedToSatisfyReadPreference (133), unless the
// reply also carries a write concern error; NonResumableChangeStreamError for
// ChangeStreamFatalError (280) and ChangeStreamHistoryLost (286); none otherwise (including
// ElectionInProgress, 216, and CursorNotFound, 43, which drivers resume on by code).
// Errors injected by a failCommand fail point carry only the fail point's labels: do not call
// this for them.
std::optional<std::string_view> ChangeStreamErrorLabel(ErrorCode code,
                                                       bool has_write_concern_error = false);

}  // namespace quarry::changestream
