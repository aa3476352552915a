// The envelope of every reply: ok, MongoDB's error fields, and the cluster time a replica-set
// member gossips.
#pragma once

#include <optional>

#include "base/status.h"
#include "bson/value.h"
#include "commands/service_state.h"

namespace quarry::server {

// `body` plus writeConcernError (if any), the cluster time fields and ok: 1. Unless `body` has an
// `ok` field, the reply extends its buffer in place (a batch of up to 16 MiB is not copied).
// A write concern error is either a Status or, from the failCommand fail point, a document
// given as is. `labels` (an array) become the reply's errorLabels.
bson::Document FinishSuccessReply(const commands::ServiceState& state, bson::Document body,
                                  const std::optional<Status>& write_concern_error,
                                  const std::optional<bson::Document>& write_concern_error_doc = {},
                                  const std::optional<bson::Document>& labels = {});

// {ok: 0, errmsg, code, codeName, <extra info>, errorLabels, cluster time fields}.
bson::Document BuildErrorReply(const commands::ServiceState& state, const Status& status,
                               const std::optional<bson::Document>& labels = {});

}  // namespace quarry::server
