// YCSB's records: key "user<N>", ten fields field0..field9 of 100 printable bytes each, and the
// checks that a store returned a record whole.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace quarry::bench {

inline constexpr int kFieldCount = 10;
inline constexpr std::size_t kFieldBytes = 100;

using Record = std::array<std::string, kFieldCount>;

// "user" and `index` zero-padded to 10 digits, so key order is index order in every store.
std::string UserKey(std::uint64_t index);
// "field0" .. "field9".
const std::string& FieldName(int field_idx);
// kFieldBytes random characters from [A-Za-z0-9_-], which need no escaping in JSON or BSON.
std::string RandomFieldValue(std::mt19937_64& random);
Record RandomRecord(std::mt19937_64& random);

// Whether a field named `name` holding `value` is one of a whole record's fields.
bool IsRecordField(std::string_view name, std::size_t value_bytes);

// The record as a JSON object {"field0": "...", ...}.
std::string RecordJson(const Record& record);
// How many record fields (IsRecordField) a flat JSON object of string values has, as
// PostgreSQL prints jsonb; -1 when the text is not such an object.
int CountRecordFieldsInJson(std::string_view json);

// Checks a scan's records as they arrive: keys strictly ascending from the start key (which
// may itself be the first) and every record whole.
class ScanCheck {
 public:
  explicit ScanCheck(std::string_view start) : previous_(start) {}

  void Add(std::string_view key, int record_fields);
  // At least one record, at most `max_records`, each whole and in order.
  bool Passed(int max_records) const;

 private:
  std::string previous_;
  int records_ = 0;
  bool in_order_and_whole_ = true;
};

}  // namespace quarry::bench
