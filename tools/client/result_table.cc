// Text and JSON forms of a ResultTable.
#include "tools/client/result_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/json_string.h"

namespace quarry::tools::client {
namespace {

bool IsNumber(const Cell& cell) {
  return std::holds_alternative<std::int64_t>(cell) || std::holds_alternative<double>(cell);
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : "null";
}

std::string JsonCell(const Cell& cell) {
  if (const auto* text = std::get_if<std::string>(&cell)) return JsonString(*text);
  if (const auto* integer = std::get_if<std::int64_t>(&cell)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&cell)) return JsonNumber(*real);
  return "null";
}

void AppendPadded(const std::string& text, std::size_t width, bool right, std::string* out) {
  if (right) out->append(width - std::min(width, text.size()), ' ');
  out->append(text);
  if (!right) out->append(width - std::min(width, text.size()), ' ');
}

}  // namespace

std::size_t ResultTable::ColumnIndex(const std::string& key) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].key == key) return i;
  }
  return columns.size();
}

std::string FormatCell(const Cell& cell, const Column& column) {
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  if (const auto* integer = std::get_if<std::int64_t>(&cell)) return std::to_string(*integer);
  if (const auto* real = std::get_if<double>(&cell)) {
    if (!std::isfinite(*real)) return "-";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", column.decimals, *real);
    return buffer;
  }
  return "-";
}

std::string FormatText(const ResultTable& table) {
  std::string out;
  if (!table.title.empty()) out += table.title + "\n";
  if (!table.parameters.empty()) {
    std::string line;
    for (const auto& [name, value] : table.parameters) {
      if (!line.empty()) line += "  ";
      line += name + ": " + FormatCell(value, Column{"", "", 2});
    }
    out += line + "\n";
  }
  if (!out.empty()) out += "\n";

  const std::size_t n = table.columns.size();
  std::vector<std::vector<std::string>> texts;
  std::vector<std::size_t> widths(n);
  std::vector<bool> numeric(n, false);
  for (std::size_t col = 0; col < n; ++col) widths[col] = table.columns[col].heading.size();
  for (const auto& row : table.rows) {
    std::vector<std::string>& cells = texts.emplace_back();
    for (std::size_t col = 0; col < n; ++col) {
      const Cell empty;
      const Cell& cell = col < row.size() ? row[col] : empty;
      cells.push_back(FormatCell(cell, table.columns[col]));
      widths[col] = std::max(widths[col], cells.back().size());
      if (IsNumber(cell)) numeric[col] = true;
    }
  }
  auto emit_row = [&](auto cell_text) {
    std::string line;
    for (std::size_t col = 0; col < n; ++col) {
      if (col > 0) line += "  ";
      AppendPadded(cell_text(col), widths[col], numeric[col], &line);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit_row([&](std::size_t col) { return table.columns[col].heading; });
  emit_row([&](std::size_t col) { return std::string(widths[col], '-'); });
  for (const auto& cells : texts) emit_row([&](std::size_t col) { return cells[col]; });
  if (!table.notes.empty()) out += "\n";
  for (const std::string& note : table.notes) out += note + "\n";
  return out;
}

std::string JsonString(const std::string& text) { return QuoteJson(text); }

std::string FormatJson(const ResultTable& table) {
  std::string out = "{\"benchmark\":" + JsonString(table.benchmark) +
                    ",\"title\":" + JsonString(table.title) + ",\"parameters\":{";
  for (std::size_t i = 0; i < table.parameters.size(); ++i) {
    if (i > 0) out += ",";
    out += JsonString(table.parameters[i].first) + ":" + JsonCell(table.parameters[i].second);
  }
  out += "},\"columns\":[";
  for (std::size_t col = 0; col < table.columns.size(); ++col) {
    if (col > 0) out += ",";
    out += "{\"key\":" + JsonString(table.columns[col].key) +
           ",\"heading\":" + JsonString(table.columns[col].heading) + "}";
  }
  out += "],\"rows\":[";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    if (r > 0) out += ",";
    out += "{";
    for (std::size_t col = 0; col < table.columns.size(); ++col) {
      if (col > 0) out += ",";
      const Cell empty;
      const Cell& cell = col < table.rows[r].size() ? table.rows[r][col] : empty;
      out += JsonString(table.columns[col].key) + ":" + JsonCell(cell);
    }
    out += "}";
  }
  out += "],\"notes\":[";
  for (std::size_t i = 0; i < table.notes.size(); ++i) {
    if (i > 0) out += ",";
    out += JsonString(table.notes[i]);
  }
  return out + "]}";
}

}  // namespace quarry::tools::client
