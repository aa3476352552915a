#include "server/testing/fail_point.h"

#include <algorithm>

namespace quarry::server {

StatusWith<std::int64_t> FailPoint::Configure(bson::ValueView mode, bson::DocumentView data,
                                              bool needs_command_list) {
  std::lock_guard lock(mu_);
  std::int64_t hits = hits_;
  if (mode.type() == bson::Type::kString && mode.String() == "off") {
    enabled_ = false;
    return hits;
  }
  std::optional<std::int64_t> times;
  std::int64_t skip = 0;
  if (mode.type() == bson::Type::kString && mode.String() == "alwaysOn") {
    times.reset();
  } else if (mode.type() == bson::Type::kDocument && mode.Document().Get("times").IsNumber()) {
    times = mode.Document().Get("times").AsInt64();
  } else if (mode.type() == bson::Type::kDocument && mode.Document().Get("skip").IsNumber()) {
    skip = mode.Document().Get("skip").AsInt64();
  } else {
    return Status(ErrorCode::kBadValue, "mode must be 'off', 'alwaysOn', {times: n}, or {skip: n}");
  }
  std::vector<std::string> commands;
  bson::ValueView list = data.Get("failCommands");
  if (needs_command_list && list.type() != bson::Type::kArray) {
    return Status(ErrorCode::kBadValue, "failCommand requires data.failCommands, an array");
  }
  if (list.type() == bson::Type::kArray) {
    for (const bson::Element& e : list.Document()) {
      if (e.value.type() == bson::Type::kString) commands.emplace_back(e.value.String());
    }
  }
  FailCommandAction action;
  if (data.Get("errorCode").IsNumber())
    action.error_code = static_cast<std::int32_t>(data.Get("errorCode").AsInt64());
  action.close_connection = data.Get("closeConnection").Truthy();
  action.close_connection_given = data.Has("closeConnection");
  if (data.Get("failBeforeCommitExceptionCode").IsNumber()) {
    action.fail_before_commit_code =
        static_cast<std::int32_t>(data.Get("failBeforeCommitExceptionCode").AsInt64());
  }
  if (data.Get("blockConnection").Truthy() && data.Get("blockTimeMS").IsNumber()) {
    action.block_ms = data.Get("blockTimeMS").AsInt64();
  }
  if (data.Get("writeConcernError").type() == bson::Type::kDocument) {
    action.write_concern_error = bson::Document::Copy(data.Get("writeConcernError").Document());
  }
  if (data.Get("errorLabels").type() == bson::Type::kArray) {
    action.error_labels = bson::Document::Copy(data.Get("errorLabels").Document());
  }
  enabled_ = true;
  times_left_ = times;
  skip_left_ = skip;
  hits_ = 0;
  commands_ = std::move(commands);
  app_name_ = data.Get("appName").type() == bson::Type::kString
                  ? std::string(data.Get("appName").String())
                  : std::string();
  action_ = std::move(action);
  return hits;
}

std::optional<FailCommandAction> FailPoint::Check(std::string_view command,
                                                  std::string_view app_name) {
  std::lock_guard lock(mu_);
  if (!enabled_) return std::nullopt;
  if (!commands_.empty() &&
      std::find(commands_.begin(), commands_.end(), command) == commands_.end()) {
    return std::nullopt;
  }
  if (!app_name_.empty() && app_name_ != app_name) return std::nullopt;
  if (skip_left_ > 0) {
    --skip_left_;
    return std::nullopt;
  }
  if (times_left_.has_value()) {
    if (*times_left_ <= 0) {
      enabled_ = false;
      return std::nullopt;
    }
    if (--*times_left_ == 0) enabled_ = false;
  }
  ++hits_;
  return action_;
}

}  // namespace quarry::server
