// The SVG bar chart. Layout is computed in whole pixels from character counts (no font
// metrics), which is close enough for the 12 px sans-serif text the chart uses.
#include "tools/client/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

namespace quarry::tools::client {
namespace {

constexpr int kMargin = 16;
constexpr int kTitleHeight = 28;
constexpr int kBarHeight = 18;
constexpr int kBarGap = 6;
constexpr int kPanelGap = 18;
constexpr int kValueWidth = 120;
constexpr double kCharWidth = 7.0;  // about one 12 px sans-serif character
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                    "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool AsNumber(const Cell& cell, double* out) {
  if (const auto* integer = std::get_if<std::int64_t>(&cell)) {
    *out = static_cast<double>(*integer);
    return true;
  }
  if (const auto* real = std::get_if<double>(&cell)) {
    *out = *real;
    return std::isfinite(*real);
  }
  return false;
}

std::string Pixels(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

}  // namespace

StatusWith<std::string> RenderBarChartSvg(const ResultTable& table, const ChartOptions& options) {
  for (std::size_t col : options.label_columns) {
    if (col >= table.columns.size()) return Status(ErrorCode::kBadValue, "no such label column");
  }
  for (std::size_t col : options.value_columns) {
    if (col >= table.columns.size()) return Status(ErrorCode::kBadValue, "no such value column");
  }

  std::vector<std::string> labels;
  std::map<std::string, std::string> colours;  // by the first label column's text
  std::vector<std::string> row_colours;
  std::size_t longest_label = 0;
  for (const auto& row : table.rows) {
    std::string label;
    for (std::size_t col : options.label_columns) {
      if (!label.empty()) label += ' ';
      label += col < row.size() ? FormatCell(row[col], table.columns[col]) : "-";
    }
    std::string group =
        options.label_columns.empty() || options.label_columns[0] >= row.size()
            ? std::string()
            : FormatCell(row[options.label_columns[0]], table.columns[options.label_columns[0]]);
    auto [it, inserted] = colours.emplace(group, kPalette[colours.size() % std::size(kPalette)]);
    row_colours.push_back(it->second);
    longest_label = std::max(longest_label, label.size());
    labels.push_back(std::move(label));
  }

  const int width = std::max(options.width, 320);
  const int label_width = std::clamp(
      static_cast<int>(static_cast<double>(longest_label) * kCharWidth) + 10, 60, width * 2 / 5);
  const int bar_left = kMargin + label_width;
  const double bar_span = std::max(40, width - bar_left - kValueWidth - kMargin);
  const int rows = static_cast<int>(table.rows.size());
  const int panel_height = kTitleHeight + rows * (kBarHeight + kBarGap);
  const int heading_height = table.title.empty() ? 0 : kTitleHeight;
  const int height = kMargin * 2 + heading_height +
                     static_cast<int>(options.value_columns.size()) * (panel_height + kPanelGap);

  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
         " " + std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  int y = kMargin;
  if (!table.title.empty()) {
    svg += "<text x=\"" + std::to_string(kMargin) + "\" y=\"" + std::to_string(y + 16) +
           "\" font-size=\"15\" font-weight=\"bold\">" + XmlEscape(table.title) + "</text>\n";
    y += heading_height;
  }
  for (std::size_t value_col : options.value_columns) {
    const Column& column = table.columns[value_col];
    double largest = 0;
    for (const auto& row : table.rows) {
      double value;
      if (value_col < row.size() && AsNumber(row[value_col], &value)) {
        largest = std::max(largest, value);
      }
    }
    svg += "<g class=\"panel\">\n";
    svg += "<text x=\"" + std::to_string(kMargin) + "\" y=\"" + std::to_string(y + 18) +
           "\" font-weight=\"bold\">" + XmlEscape(column.heading) + "</text>\n";
    y += kTitleHeight;
    for (int r = 0; r < rows; ++r) {
      const auto& row = table.rows[static_cast<std::size_t>(r)];
      const int text_y = y + kBarHeight - 5;
      svg += "<text x=\"" + std::to_string(bar_left - 6) + "\" y=\"" + std::to_string(text_y) +
             "\" text-anchor=\"end\">" + XmlEscape(labels[static_cast<std::size_t>(r)]) +
             "</text>\n";
      double value;
      std::string value_text = "n/a";
      double bar = 0;
      if (value_col < row.size() && AsNumber(row[value_col], &value)) {
        value_text = FormatCell(row[value_col], column);
        if (value > 0 && largest > 0) bar = bar_span * value / largest;
        svg += "<rect class=\"bar\" x=\"" + std::to_string(bar_left) + "\" y=\"" +
               std::to_string(y) + "\" width=\"" + Pixels(bar) + "\" height=\"" +
               std::to_string(kBarHeight) + "\" fill=\"" +
               row_colours[static_cast<std::size_t>(r)] + "\"/>\n";
      }
      svg += "<text x=\"" + Pixels(bar_left + bar + 6) + "\" y=\"" + std::to_string(text_y) +
             "\">" + XmlEscape(value_text) + "</text>\n";
      y += kBarHeight + kBarGap;
    }
    svg += "</g>\n";
    y += kPanelGap;
  }
  svg += "</svg>\n";
  return svg;
}

Status WriteBarChartSvg(const ResultTable& table, const ChartOptions& options,
                        const std::string& path) {
  QUARRY_ASSIGN_OR_RETURN(std::string svg, RenderBarChartSvg(table, options));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return Status(ErrorCode::kOperationFailed, "cannot open " + path + " for writing");
  file << svg;
  file.close();
  if (!file) return Status(ErrorCode::kOperationFailed, "cannot write " + path);
  return Status::OK();
}

}  // namespace quarry::tools::client
