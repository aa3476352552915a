// ParseContext (variable scopes), EvalContext (run-time variables), and the variable-name rules.
#include <chrono>

#include "base/clock.h"
#include "query/expression/expression.h"
#include "query/expression/expression_internal.h"

namespace quarry::query {
namespace {

bool IsAsciiLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAsciiAlpha(char c) { return IsAsciiLower(c) || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHighBit(char c) { return (static_cast<unsigned char>(c) & 0x80) != 0; }

}  // namespace

namespace expr_internal {

Status ValidateVariableNameForWrite(std::string_view name) {
  if (name.empty()) return LocationError(16866, "empty variable names are not allowed");
  if (!IsAsciiLower(name[0]) && !IsHighBit(name[0])) {
    return LocationError(16867, "'" + std::string(name) +
                                    "' starts with an invalid character for a user variable name");
  }
  for (char c : name.substr(1)) {
    if (!IsAsciiAlpha(c) && !IsAsciiDigit(c) && c != '_' && !IsHighBit(c)) {
      return LocationError(16868, "'" + std::string(name) +
                                      "' contains an invalid character for a variable name: '" +
                                      std::string(1, c) + "'");
    }
  }
  return Status::OK();
}

}  // namespace expr_internal

using expr_internal::ValidateVariableNameForWrite;

// ---- ParseContext ----

Status ParseContext::DefineConstant(std::string_view name, Value value) {
  QUARRY_RETURN_IF_ERROR(ValidateVariableNameForWrite(name));
  Binding binding;
  binding.found = true;
  binding.is_constant = true;
  binding.constant = value.Owned();
  scopes_.back().names[std::string(name)] = std::move(binding);
  return Status::OK();
}

void ParseContext::DefineSearchMeta(Value value) {
  Binding binding;
  binding.found = true;
  binding.is_constant = true;
  binding.constant = value.Owned();
  scopes_.front().names["SEARCH_META"] = std::move(binding);
}

VariableId ParseContext::DefineSearchMetaSlot() {
  Binding binding;
  binding.found = true;
  binding.slot = next_slot_++;
  scopes_.back().names["SEARCH_META"] = binding;
  return binding.slot;
}

StatusWith<VariableId> ParseContext::DefineVariable(std::string_view name) {
  if (!(name == "CURRENT")) QUARRY_RETURN_IF_ERROR(ValidateVariableNameForWrite(name));
  Binding binding;
  binding.found = true;
  binding.slot = next_slot_++;
  scopes_.back().names[std::string(name)] = binding;
  return binding.slot;
}

void ParseContext::PushScope() { scopes_.emplace_back(); }

void ParseContext::PopScope() {
  if (scopes_.size() > 1) scopes_.pop_back();
}

ParseContext::Binding ParseContext::Lookup(std::string_view name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->names.find(name);
    if (found != it->names.end()) return found->second;
  }
  return Binding();
}

// ---- EvalContext ----

EvalContext::EvalContext() : now_millis_(NowMillis()) {}

EvalContext::EvalContext(Value root) : now_millis_(NowMillis()) { SetRoot(std::move(root)); }

void EvalContext::SetRoot(Value root) {
  root_ = std::move(root);
  current_ = root_;
}

void EvalContext::SetRoot(bson::DocumentView doc) {
  SetRoot(Value::Unowned(bson::ValueView(bson::Type::kDocument, doc.data(), doc.size())));
}

const Value& EvalContext::GetVariable(VariableId id) const {
  static const Value kMissing;
  if (id < 0 || static_cast<std::size_t>(id) >= slots_.size()) return kMissing;
  return slots_[static_cast<std::size_t>(id)];
}

void EvalContext::SetVariable(VariableId id, Value value) {
  if (id < 0) return;
  if (static_cast<std::size_t>(id) >= slots_.size())
    slots_.resize(static_cast<std::size_t>(id) + 1);
  slots_[static_cast<std::size_t>(id)] = std::move(value);
}

}  // namespace quarry::query
