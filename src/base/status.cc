// Status: construction, code names and categories from error_codes.def.
#include "base/status.h"

namespace quarry {
namespace {

struct CodeInfo {
  ErrorCode code;
  const char* name;
  unsigned categories;
};

constexpr CodeInfo kCodes[] = {
#define QUARRY_ERROR_CODE(name, number, mongo_name, categories) \
  {ErrorCode::name, mongo_name, categories},
#include "base/error_codes.def"
#undef QUARRY_ERROR_CODE
};

const CodeInfo* Find(ErrorCode code) {
  for (const CodeInfo& info : kCodes) {
    if (info.code == code) return &info;
  }
  return nullptr;
}

const std::string kEmpty;

}  // namespace

std::string ErrorCodeName(ErrorCode code) {
  if (const CodeInfo* info = Find(code)) return info->name;
  // mongod names codes without a table entry after their assertion site.
  return "Location" + std::to_string(static_cast<std::int32_t>(code));
}

bool IsInCategory(ErrorCode code, ErrorCategory category) {
  const CodeInfo* info = Find(code);
  return info != nullptr && (info->categories & category) != 0;
}

Status::Status(ErrorCode code, std::string reason) {
  if (code != ErrorCode::kOk) state_ = std::make_shared<State>(State{code, std::move(reason), {}});
}

const std::string& Status::extra_info() const { return ok() ? kEmpty : state_->extra_info; }

Status Status::WithExtraInfo(std::string bson_bytes) && {
  if (ok()) return *this;
  Status result;
  result.state_ =
      std::make_shared<State>(State{state_->code, state_->reason, std::move(bson_bytes)});
  return result;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  Status result;
  result.state_ = std::make_shared<State>(
      State{state_->code, std::string(context) + ": " + state_->reason, state_->extra_info});
  return result;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return code_name() + ": " + state_->reason;
}

}  // namespace quarry
