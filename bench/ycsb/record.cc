// Record text. Values use a 64-character alphabet, so one 64-bit draw fills ten characters
// and making a record costs the client little beside the stores it measures.
#include "bench/ycsb/record.h"

#include <cstdio>

namespace quarry::bench {
namespace {

constexpr std::string_view kValueAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

std::array<std::string, kFieldCount> MakeFieldNames() {
  std::array<std::string, kFieldCount> names;
  for (int field_idx = 0; field_idx < kFieldCount; ++field_idx) {
    names[field_idx] = "field" + std::to_string(field_idx);
  }
  return names;
}

// Reads the JSON string (without escapes) that starts at `*pos` and moves `*pos` past it;
// returns false if there is none.
bool ReadPlainString(std::string_view json, std::size_t* pos, std::string_view* text) {
  if (*pos >= json.size() || json[*pos] != '"') return false;
  const std::size_t end = json.find('"', *pos + 1);
  if (end == std::string_view::npos) return false;
  *text = json.substr(*pos + 1, end - *pos - 1);
  if (text->find('\\') != std::string_view::npos) return false;
  *pos = end + 1;
  return true;
}

void SkipSpaces(std::string_view json, std::size_t* pos) {
  while (*pos < json.size() && json[*pos] == ' ') ++*pos;
}

}  // namespace

std::string UserKey(std::uint64_t index) {
  char text[32];
  std::snprintf(text, sizeof text, "user%010llu", static_cast<unsigned long long>(index));
  return text;
}

const std::string& FieldName(int field_idx) {
  static const std::array<std::string, kFieldCount> names = MakeFieldNames();
  return names[field_idx];
}

std::string RandomFieldValue(std::mt19937_64& random) {
  std::string value(kFieldBytes, ' ');
  std::uint64_t bits = 0;
  for (std::size_t char_idx = 0; char_idx < kFieldBytes; ++char_idx) {
    if (char_idx % 10 == 0) bits = random();
    value[char_idx] = kValueAlphabet[bits & 63];
    bits >>= 6;
  }
  return value;
}

Record RandomRecord(std::mt19937_64& random) {
  Record record;
  for (std::string& value : record) value = RandomFieldValue(random);
  return record;
}

bool IsRecordField(std::string_view name, std::size_t value_bytes) {
  return name.size() == 6 && name.starts_with("field") && name[5] >= '0' &&
         name[5] < '0' + kFieldCount && value_bytes == kFieldBytes;
}

std::string RecordJson(const Record& record) {
  std::string json = "{";
  for (int field_idx = 0; field_idx < kFieldCount; ++field_idx) {
    if (field_idx > 0) json += ", ";
    json += '"' + FieldName(field_idx) + "\": \"" + record[field_idx] + '"';
  }
  return json + "}";
}

int CountRecordFieldsInJson(std::string_view json) {
  std::size_t pos = 0;
  SkipSpaces(json, &pos);
  if (pos >= json.size() || json[pos++] != '{') return -1;
  int fields = 0;
  SkipSpaces(json, &pos);
  if (pos < json.size() && json[pos] == '}') return 0;
  while (true) {
    std::string_view name;
    std::string_view value;
    SkipSpaces(json, &pos);
    if (!ReadPlainString(json, &pos, &name)) return -1;
    SkipSpaces(json, &pos);
    if (pos >= json.size() || json[pos++] != ':') return -1;
    SkipSpaces(json, &pos);
    if (!ReadPlainString(json, &pos, &value)) return -1;
    if (IsRecordField(name, value.size())) ++fields;
    SkipSpaces(json, &pos);
    if (pos >= json.size()) return -1;
    const char separator = json[pos++];
    if (separator == '}') return fields;
    if (separator != ',') return -1;
  }
}

void ScanCheck::Add(std::string_view key, int record_fields) {
  const bool in_order = records_ == 0 ? key >= previous_ : key > previous_;
  in_order_and_whole_ = in_order_and_whole_ && in_order && record_fields == kFieldCount;
  previous_.assign(key);
  ++records_;
}

bool ScanCheck::Passed(int max_records) const {
  return in_order_and_whole_ && records_ >= 1 && records_ <= max_records;
}

}  // namespace quarry::bench
