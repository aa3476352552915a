#include "tools/import/csv_columns.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "tools/import/date_layout.h"
#include "tools/import/extended_json_values.h"

namespace quarry::tools::importing {
namespace {

Status BadColumn(const std::string& name, const std::string& why) {
  return Status(ErrorCode::kBadValue, "column \"" + name + "\": " + why);
}

std::optional<std::int64_t> ParseInteger(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> ParseDouble(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

// strconv.ParseBool's spellings, which mongoimport's boolean() accepts.
std::optional<bool> ParseBoolean(const std::string& text) {
  for (const char* yes : {"1", "t", "T", "true", "TRUE", "True"}) {
    if (text == yes) return true;
  }
  for (const char* no : {"0", "f", "F", "false", "FALSE", "False"}) {
    if (text == no) return false;
  }
  return std::nullopt;
}

bool AppendAuto(const std::string& text, const char* key, int key_length, bson_t* out) {
  if (auto integer = ParseInteger(text)) {
    if (*integer >= std::numeric_limits<std::int32_t>::min() &&
        *integer <= std::numeric_limits<std::int32_t>::max()) {
      return bson_append_int32(out, key, key_length, static_cast<std::int32_t>(*integer));
    }
    return bson_append_int64(out, key, key_length, *integer);
  }
  // Words strtod would read as numbers ("nan", "inf", "0x1p3") stay strings.
  const bool numeric_text =
      !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
  if (numeric_text) {
    if (auto number = ParseDouble(text)) return bson_append_double(out, key, key_length, *number);
  }
  return bson_append_utf8(out, key, key_length, text.data(), static_cast<int>(text.size()));
}

// "name.type(argument)" -> the three parts.
StatusWith<ColumnSpec> ParseTypedName(const std::string& text) {
  if (text.empty() || text.back() != ')') {
    return BadColumn(text, "--columnsHaveTypes needs name.type(), e.g. age.int32()");
  }
  const std::size_t open = text.find('(');
  const std::size_t dot = open == std::string::npos ? std::string::npos : text.rfind('.', open);
  if (open == std::string::npos || dot == std::string::npos || dot == 0) {
    return BadColumn(text, "--columnsHaveTypes needs name.type(), e.g. age.int32()");
  }
  ColumnSpec spec;
  spec.name = text.substr(0, dot);
  const std::string type = text.substr(dot + 1, open - dot - 1);
  spec.argument = text.substr(open + 1, text.size() - open - 2);
  static const std::map<std::string, ColumnType, std::less<>> kTypes = {
      {"auto", ColumnType::kAuto},       {"string", ColumnType::kString},
      {"int32", ColumnType::kInt32},     {"int64", ColumnType::kInt64},
      {"double", ColumnType::kDouble},   {"decimal", ColumnType::kDecimal},
      {"boolean", ColumnType::kBoolean}, {"date", ColumnType::kDate},
      {"date_go", ColumnType::kDate},    {"date_ms", ColumnType::kDateMs},
      {"binary", ColumnType::kBinary},
  };
  auto found = kTypes.find(type);
  if (found == kTypes.end()) {
    return BadColumn(spec.name, "type " + type +
                                    "() is not supported (auto, string, int32, int64, double, "
                                    "decimal, boolean, date, date_go, date_ms, binary)");
  }
  spec.type = found->second;
  if (spec.type == ColumnType::kDate) {
    auto layout = DateLayout::FromGo(spec.argument);
    if (!layout.ok()) return BadColumn(spec.name, std::string(layout.status().reason()));
    spec.date_layout = std::make_shared<const DateLayout>(std::move(layout.value()));
  } else if (spec.type == ColumnType::kDateMs) {
    auto layout = DateLayout::FromMs(spec.argument);
    if (!layout.ok()) return BadColumn(spec.name, std::string(layout.status().reason()));
    spec.date_layout = std::make_shared<const DateLayout>(std::move(layout.value()));
  } else if (spec.type == ColumnType::kBinary) {
    if (spec.argument != "base64" && spec.argument != "hex") {
      return BadColumn(spec.name, "binary() takes base64 or hex");
    }
  } else if (!spec.argument.empty()) {
    return BadColumn(spec.name, type + "() takes no argument");
  }
  return spec;
}

}  // namespace

StatusWith<std::vector<ColumnSpec>> ParseColumns(const std::vector<std::string>& names,
                                                 bool have_types) {
  std::vector<ColumnSpec> columns;
  std::map<std::string, std::size_t, std::less<>> seen;
  for (const std::string& name : names) {
    ColumnSpec spec;
    if (have_types) {
      auto typed = ParseTypedName(name);
      if (!typed.ok()) return typed.status();
      spec = std::move(typed.value());
    } else {
      spec.name = name;
    }
    if (spec.name.empty()) return Status(ErrorCode::kBadValue, "a column has an empty field name");
    if (!seen.emplace(spec.name, columns.size()).second) {
      return BadColumn(spec.name, "named twice");
    }
    columns.push_back(std::move(spec));
  }
  // "a" beside "a.b" would need "a" to be both a value and a document.
  for (const auto& [name, index] : seen) {
    auto next = seen.upper_bound(name);
    if (next != seen.end() && next->first.size() > name.size() && next->first.starts_with(name) &&
        next->first[name.size()] == '.') {
      return BadColumn(next->first, "conflicts with column \"" + name + "\"");
    }
  }
  return columns;
}

bool AppendTypedValue(const ColumnSpec& column, const std::string& text, const char* key,
                      int key_length, bson_t* out) {
  switch (column.type) {
    case ColumnType::kAuto:
      return AppendAuto(text, key, key_length, out);
    case ColumnType::kString:
      return bson_append_utf8(out, key, key_length, text.data(), static_cast<int>(text.size()));
    case ColumnType::kInt32: {
      auto value = ParseInteger(text);
      if (!value || *value < std::numeric_limits<std::int32_t>::min() ||
          *value > std::numeric_limits<std::int32_t>::max()) {
        return false;
      }
      return bson_append_int32(out, key, key_length, static_cast<std::int32_t>(*value));
    }
    case ColumnType::kInt64: {
      auto value = ParseInteger(text);
      return value && bson_append_int64(out, key, key_length, *value);
    }
    case ColumnType::kDouble: {
      auto value = ParseDouble(text);
      return value && bson_append_double(out, key, key_length, *value);
    }
    case ColumnType::kDecimal: {
      bson_decimal128_t decimal;
      return !text.empty() &&
             bson_decimal128_from_string_w_len(text.data(), static_cast<int>(text.size()),
                                               &decimal) &&
             bson_append_decimal128(out, key, key_length, &decimal);
    }
    case ColumnType::kBoolean: {
      auto value = ParseBoolean(text);
      return value && bson_append_bool(out, key, key_length, *value);
    }
    case ColumnType::kDate:
    case ColumnType::kDateMs: {
      if (column.date_layout == nullptr) return false;
      auto millis = column.date_layout->Parse(text);
      return millis && bson_append_date_time(out, key, key_length, *millis);
    }
    case ColumnType::kBinary: {
      auto bytes = column.argument == "hex" ? DecodeHex(text) : DecodeBase64(text);
      return bytes && bson_append_binary(out, key, key_length, BSON_SUBTYPE_BINARY,
                                         reinterpret_cast<const std::uint8_t*>(bytes->data()),
                                         static_cast<std::uint32_t>(bytes->size()));
    }
  }
  return false;
}

// The field names as a tree: a dotted name's parts nest, in the order columns first name them.
struct ColumnConverter::Node {
  std::string key;
  int column = -1;  // a leaf: the column it reads
  std::vector<std::unique_ptr<Node>> children;
};

ColumnConverter::ColumnConverter(std::vector<ColumnSpec> columns, bool ignore_blanks,
                                 ParseGrace grace)
    : columns_(std::move(columns)),
      ignore_blanks_(ignore_blanks),
      grace_(grace),
      root_(std::make_unique<Node>()) {
  for (std::size_t index = 0; index < columns_.size(); ++index) {
    Node* node = root_.get();
    std::string_view rest = columns_[index].name;
    while (true) {
      const std::size_t dot = rest.find('.');
      const std::string_view part = rest.substr(0, dot);
      Node* child = nullptr;
      for (auto& existing : node->children) {
        if (existing->key == part) child = existing.get();
      }
      if (child == nullptr) {
        node->children.push_back(std::make_unique<Node>());
        child = node->children.back().get();
        child->key = std::string(part);
      }
      node = child;
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
    node->column = static_cast<int>(index);
  }
}

ColumnConverter::~ColumnConverter() = default;

StatusWith<int> ColumnConverter::AppendNode(const Node& node,
                                            const std::vector<std::string>& values, bson_t* out,
                                            bool* skip_row) const {
  int appended = 0;
  for (const auto& child : node.children) {
    const char* key = child->key.data();
    const int key_length = static_cast<int>(child->key.size());
    if (child->column < 0) {
      bson_t sub = BSON_INITIALIZER;
      auto count = AppendNode(*child, values, &sub, skip_row);
      if (!count.ok() || *skip_row) {
        bson_destroy(&sub);
        return count;
      }
      const bool ok = count.value() == 0 || bson_append_document(out, key, key_length, &sub);
      bson_destroy(&sub);
      if (!ok) return Status(ErrorCode::kBadValue, "the document exceeds the BSON size limit");
      if (count.value() > 0) ++appended;
      continue;
    }
    const auto column = static_cast<std::size_t>(child->column);
    if (column >= values.size()) continue;
    const std::string& text = values[column];
    if (text.empty() && ignore_blanks_) continue;
    const ColumnSpec& spec = columns_[column];
    if (AppendTypedValue(spec, text, key, key_length, out)) {
      ++appended;
      continue;
    }
    switch (grace_) {
      case ParseGrace::kAutoCast:
        if (!AppendAuto(text, key, key_length, out)) {
          return Status(ErrorCode::kBadValue, "the document exceeds the BSON size limit");
        }
        ++appended;
        continue;
      case ParseGrace::kSkipField:
        continue;
      case ParseGrace::kSkipRow:
        *skip_row = true;
        return appended;
      case ParseGrace::kStop:
        return Status(ErrorCode::kBadValue,
                      "column \"" + spec.name + "\": cannot read \"" + text + "\" as its type");
    }
  }
  return appended;
}

RowOutcome ColumnConverter::Convert(const std::vector<std::string>& values, bson_t* out) const {
  if (values.size() > columns_.size()) {
    return {RowOutcome::kFailed, "the record has " + std::to_string(values.size()) +
                                     " fields but only " + std::to_string(columns_.size()) +
                                     " columns are named"};
  }
  bool skip_row = false;
  auto appended = AppendNode(*root_, values, out, &skip_row);
  if (!appended.ok()) {
    return {RowOutcome::kFailed, std::string(appended.status().reason()),
            grace_ == ParseGrace::kStop};
  }
  if (skip_row)
    return {RowOutcome::kSkipped, "a value does not fit its column's type (--parseGrace skipRow)"};
  return {};
}

}  // namespace quarry::tools::importing
