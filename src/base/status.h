// Status and StatusWith<T>: how every Quarry layer reports failure, with MongoDB's error codes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace quarry {

enum class ErrorCode : std::int32_t {
#define QUARRY_ERROR_CODE(name, number, mongo_name, categories) name = number,
#include "base/error_codes.def"
#undef QUARRY_ERROR_CODE
};

// Bit flags for ErrorCode categories (error_codes.def's last column).
enum ErrorCategory : unsigned {
  kRetriable = 1u << 0,
  kNonResumable = 1u << 1,
  kCloseConnection = 1u << 2,
  kInterruption = 1u << 3,
};

// MongoDB's codeName for `code`, e.g. "DuplicateKey"; "Location<N>" for codes not in the table.
std::string ErrorCodeName(ErrorCode code);
bool IsInCategory(ErrorCode code, ErrorCategory category);

// The outcome of an operation: OK, or a code with a message for the client. An optional
// `extra_info` holds a BSON document whose fields go at the top level of the error reply
// (DuplicateKey's keyPattern and keyValue, for example); base/ keeps it as bytes because it
// sits below bson/.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string reason);
  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  ErrorCode code() const { return ok() ? ErrorCode::kOk : state_->code; }
  std::string_view reason() const { return ok() ? std::string_view() : state_->reason; }
  std::string code_name() const { return ErrorCodeName(code()); }

  const std::string& extra_info() const;  // BSON bytes, empty when there is none
  Status WithExtraInfo(std::string bson_bytes) &&;
  // Prepends "context: " to the reason, keeping the code.
  Status WithContext(std::string_view context) const;

  std::string ToString() const;  // "DuplicateKey: E11000 ..." for logs and test failures

 private:
  struct State {
    ErrorCode code;
    std::string reason;
    std::string extra_info;
  };
  std::shared_ptr<const State> state_;
};

// A value of type T, or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] StatusWith {
 public:
  StatusWith(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  StatusWith(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design
  StatusWith(ErrorCode code, std::string reason) : status_(code, std::move(reason)) {}

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
inline const Status& AsStatus(const Status& s) { return s; }
template <typename T>
const Status& AsStatus(const StatusWith<T>& s) {
  return s.status();
}
}  // namespace internal

}  // namespace quarry

#define QUARRY_CONCAT_INNER(a, b) a##b
#define QUARRY_CONCAT(a, b) QUARRY_CONCAT_INNER(a, b)

// Returns the Status of `expr` (a Status or StatusWith) from the enclosing function if it failed.
#define QUARRY_RETURN_IF_ERROR(expr)                                                     \
  do {                                                                                   \
    const auto& quarry_status_or_ = (expr);                                              \
    if (!quarry_status_or_.ok()) return ::quarry::internal::AsStatus(quarry_status_or_); \
  } while (false)

#define QUARRY_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

// `QUARRY_ASSIGN_OR_RETURN(T x, F())`: declares x from a StatusWith<T>, or returns its Status.
#define QUARRY_ASSIGN_OR_RETURN(lhs, expr) \
  QUARRY_ASSIGN_OR_RETURN_IMPL(QUARRY_CONCAT(quarry_statusor_, __LINE__), lhs, expr)
