// Argument parsing shared by every command, so that unknown or mistyped fields fail exactly
// as mongod's IDL parser fails them (40415 unknown field, 14 wrong type, 40414 missing).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/field_table.h"
#include "bson/value.h"
#include "commands/command.h"

namespace quarry::commands {

class RequestParser {
 public:
  explicit RequestParser(const Request& request);

  // The value of the command's first field as a collection name ("find": "coll").
  StatusWith<std::string> CollectionName();

  // Each accessor marks `key` as known. Absent and explicit null give the default.
  StatusWith<bson::DocumentView> OptionalDocument(std::string_view key);
  StatusWith<std::optional<bson::DocumentView>> MaybeDocument(std::string_view key);
  StatusWith<bool> OptionalBool(std::string_view key, bool default_value);
  StatusWith<std::int64_t> OptionalInt(std::string_view key, std::int64_t default_value);
  StatusWith<std::int64_t> OptionalNonNegative(std::string_view key, std::int64_t default_value);
  StatusWith<std::string> OptionalString(std::string_view key, std::string_view default_value);
  StatusWith<bson::DocumentView> RequiredDocument(std::string_view key);
  StatusWith<std::string> RequiredString(std::string_view key);
  // Any value, unchecked; absent stays absent.
  bson::ValueView Raw(std::string_view key);
  // Fields accepted and not used (options Quarry takes but has no use for). The parser keeps
  // these keys as given: pass literals.
  void Ignore(std::initializer_list<std::string_view> keys);

  // Fails on the first field no accessor asked for and that is not a generic argument.
  Status Finish() const;

 private:
  Status WrongType(std::string_view key, bson::ValueView value, std::string_view expected) const;
  // An accessor asked for `key`, or Ignore named it.
  bool Known(std::string_view key) const;
  const Request& request_;
  // The body's fields, walked once (by dispatch, or here when it did not): each accessor then
  // compares keys, not BSON elements.
  std::optional<bson::FieldTable> walked_;
  const bson::FieldTable* table_ = nullptr;
  std::span<const bson::Element> fields_;
  // Bit i: an accessor found field i (of the first 64), so Finish need not look its key up.
  std::uint64_t found_ = 0;
  // Keys Ignore named, sequences asked for, and fields found past the 64th.
  std::vector<std::string_view> known_;
};

// True for the arguments every command accepts ($db, lsid, writeConcern, maxTimeMS, ...).
bool IsGenericArgument(std::string_view key);

}  // namespace quarry::commands
