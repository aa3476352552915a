// One fail point (mongod's test hooks, enabled by --enableTestCommands): configured with a mode
// (off, alwaysOn, {times: n}, {skip: n}) and data saying what happens to a command it hits (an
// error, a write concern error, a closed connection, a wait first).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::server {

// What the fail point does to one command that it hits.
struct FailCommandAction {
  std::optional<std::int32_t> error_code;
  bool close_connection = false;
  std::int64_t block_ms = 0;                          // blockConnection: wait before acting
  std::optional<bson::Document> write_concern_error;  // run, then report this
  std::optional<bson::Document> error_labels;         // array; replaces the usual labels
  bool close_connection_given = false;  // data had closeConnection (onPrimaryTransactionalWrite
                                        // closes unless told not to)
  // onPrimaryTransactionalWrite's failBeforeCommitExceptionCode: fail the write with this code
  // before it commits.
  std::optional<std::int32_t> fail_before_commit_code;
};

class FailPoint {
 public:
  // configureFailPoint's mode and data. Returns how many times the point was hit before.
  // `needs_command_list`: failCommand names its commands in data.failCommands; fail points
  // tied to one command (failGetMoreAfterCursorCheckout) do not.
  StatusWith<std::int64_t> Configure(bson::ValueView mode, bson::DocumentView data,
                                     bool needs_command_list = true);

  // Whether `command`, from a client named `app_name`, is hit. Counts down {times: n}.
  std::optional<FailCommandAction> Check(std::string_view command, std::string_view app_name);

 private:
  std::mutex mu_;
  bool enabled_ = false;
  std::optional<std::int64_t> times_left_;  // nullopt: alwaysOn
  std::int64_t skip_left_ = 0;
  std::int64_t hits_ = 0;
  std::vector<std::string> commands_;  // empty with !needs_command_list: every command
  std::string app_name_;
  FailCommandAction action_;
};

}  // namespace quarry::server
