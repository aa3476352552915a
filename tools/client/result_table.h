// ResultTable: what a subcommand measured, as rows of typed cells, and its two text forms: an
// aligned table for people and JSON for machines (svg_chart.h draws it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace quarry::tools::client {

// No value (shown "-", JSON null), text, an integer, or a real number.
using Cell = std::variant<std::monostate, std::string, std::int64_t, double>;

struct Column {
  std::string heading;  // in the text table, e.g. "records/s"
  std::string key;      // in JSON, e.g. "records_per_second"
  int decimals = 0;     // digits after the point for double cells in the text table
};

struct ResultTable {
  std::string benchmark;                                 // "network", "bulk", ...
  std::string title;                                     // the first line of the text form
  std::vector<std::pair<std::string, Cell>> parameters;  // what was run, in order
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  // each as long as `columns`
  std::vector<std::string> notes;       // lines printed under the table

  // The index of the column whose key is `key`, or columns.size() if there is none.
  std::size_t ColumnIndex(const std::string& key) const;
};

// One cell as the text table shows it: "-" for no value, doubles with the column's decimals.
std::string FormatCell(const Cell& cell, const Column& column);

// The title, a "key: value" line of parameters, the table with a heading row and a rule (text
// left-aligned, numbers right-aligned, two spaces between columns), then a blank line and the
// notes.
std::string FormatText(const ResultTable& table);

// {"benchmark", "title", "parameters": {...}, "columns": [{key, heading}...],
//  "rows": [{key: value...}...], "notes": [...]} on one line; doubles in full precision,
// non-finite doubles as null.
std::string FormatJson(const ResultTable& table);

// `text` as a JSON string literal, quotes included.
std::string JsonString(const std::string& text);

}  // namespace quarry::tools::client
