// Draws a ResultTable as an SVG bar chart: one panel per chosen numeric column, one horizontal
// bar per row, labelled by the chosen label columns and coloured by the first of them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/client/result_table.h"

namespace quarry::tools::client {

struct ChartOptions {
  std::vector<std::size_t> label_columns;  // joined with spaces into each bar's label
  std::vector<std::size_t> value_columns;  // one panel each, titled by the column heading
  int width = 860;                         // pixels
};

// A standalone SVG document. Bars scale to the panel's largest value; a cell without a number
// gets no bar and the text "n/a"; negative values draw no bar but print their value. All text
// is XML-escaped. Fails with kBadValue if a column index is out of range.
StatusWith<std::string> RenderBarChartSvg(const ResultTable& table, const ChartOptions& options);

// Renders and writes the chart to `path`. Fails with kFileNotOpen / kBadValue.
Status WriteBarChartSvg(const ResultTable& table, const ChartOptions& options,
                        const std::string& path);

}  // namespace quarry::tools::client
