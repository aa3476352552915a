// The envelope of every reply: ok, MongoDB's error fields, and the cluster time a replica-set
// member gossips.
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/service_state.h"

namespace quarry::server {

// `body` plus writeConcernError (if any), the cluster time fields and ok: 1.
bson::Document FinishSuccessReply(const commands::ServiceState& state, bson::DocumentView body,
                                  const std::optional<Status>& write_concern_error);

// {ok: 0, errmsg, code, codeName, <extra info>, cluster time fields}.
bson::Document BuildErrorReply(const commands::ServiceState& state, const Status& status);

}  // namespace quarry::server
