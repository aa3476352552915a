// The SVG bar chart drawn from a result table.
#include "tools/client/svg_chart.h"

#include <gtest/gtest.h>

#include <regex>

namespace quarry::tools::client {
namespace {

ResultTable RatesTable() {
  ResultTable table;
  table.title = "Rates <fast & slow>";
  table.columns = {
      {"name", "name"}, {"phase", "phase"}, {"MB/s", "rate", 1}, {"saving %", "saving", 1}};
  table.rows = {{std::string("none"), std::string("read"), 100.0, 0.0},
                {std::string("zstd"), std::string("read"), 50.0, 75.0},
                {std::string("x<y"), std::string("write"), Cell(), -5.0}};
  return table;
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

std::vector<double> BarWidths(const std::string& svg) {
  std::vector<double> widths;
  std::regex bar("<rect class=\"bar\"[^>]* width=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator();
       ++it) {
    widths.push_back(std::stod((*it)[1]));
  }
  return widths;
}

TEST(SvgChartTest, IsAStandaloneSvgDocumentWithOnePanelPerValueColumn) {
  auto svg = RenderBarChartSvg(RatesTable(), {.label_columns = {0, 1}, .value_columns = {2, 3}});
  ASSERT_TRUE(svg.ok());
  const std::string& text = svg.value();
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 7), "</svg>\n");
  EXPECT_EQ(Count(text, "<g class=\"panel\">"), 2u);
  EXPECT_EQ(Count(text, "<g "), Count(text, "</g>"));
  EXPECT_NE(text.find(">MB/s</text>"), std::string::npos);
  EXPECT_NE(text.find(">saving %</text>"), std::string::npos);
}

TEST(SvgChartTest, BarsScaleToTheLargestValueInTheirPanel) {
  auto svg = RenderBarChartSvg(RatesTable(), {.label_columns = {0}, .value_columns = {2}});
  ASSERT_TRUE(svg.ok());
  std::vector<double> widths = BarWidths(svg.value());
  ASSERT_EQ(widths.size(), 2u);  // the row without a value has no bar
  EXPECT_GT(widths[0], 100);
  EXPECT_NEAR(widths[1], widths[0] / 2, 0.1);
}

TEST(SvgChartTest, ARowWithoutAValueSaysNotAvailable) {
  auto svg = RenderBarChartSvg(RatesTable(), {.label_columns = {0}, .value_columns = {2}});
  ASSERT_TRUE(svg.ok());
  EXPECT_EQ(Count(svg.value(), ">n/a</text>"), 1u);
}

TEST(SvgChartTest, NegativeValuesDrawAnEmptyBarButPrintTheirValue) {
  auto svg = RenderBarChartSvg(RatesTable(), {.label_columns = {0}, .value_columns = {3}});
  ASSERT_TRUE(svg.ok());
  std::vector<double> widths = BarWidths(svg.value());
  ASSERT_EQ(widths.size(), 3u);
  EXPECT_EQ(widths[0], 0);
  EXPECT_EQ(widths[2], 0);
  EXPECT_NE(svg.value().find(">-5.0</text>"), std::string::npos);
}

TEST(SvgChartTest, TextIsXmlEscaped) {
  auto svg = RenderBarChartSvg(RatesTable(), {.label_columns = {0, 1}, .value_columns = {2}});
  ASSERT_TRUE(svg.ok());
  EXPECT_NE(svg.value().find("Rates &lt;fast &amp; slow&gt;"), std::string::npos);
  EXPECT_NE(svg.value().find(">x&lt;y write</text>"), std::string::npos);
  EXPECT_EQ(svg.value().find("x<y"), std::string::npos);
}

TEST(SvgChartTest, RowsOfTheSameGroupShareAColour) {
  ResultTable table = RatesTable();
  table.rows.push_back({std::string("none"), std::string("write"), 10.0, 0.0});
  auto svg = RenderBarChartSvg(table, {.label_columns = {0, 1}, .value_columns = {2}});
  ASSERT_TRUE(svg.ok());
  EXPECT_EQ(Count(svg.value(), "fill=\"#4e79a7\""), 2u);  // both "none" rows
  EXPECT_EQ(Count(svg.value(), "fill=\"#f28e2b\""), 1u);  // "zstd"
}

TEST(SvgChartTest, AColumnOutOfRangeIsAnError) {
  EXPECT_EQ(
      RenderBarChartSvg(RatesTable(), {.label_columns = {9}, .value_columns = {2}}).status().code(),
      ErrorCode::kBadValue);
  EXPECT_EQ(
      RenderBarChartSvg(RatesTable(), {.label_columns = {0}, .value_columns = {4}}).status().code(),
      ErrorCode::kBadValue);
}

TEST(SvgChartTest, WritingToAMissingDirectoryFails) {
  Status written = WriteBarChartSvg(RatesTable(), {.label_columns = {0}, .value_columns = {2}},
                                    "/nonexistent-directory/chart.svg");
  EXPECT_FALSE(written.ok());
}

}  // namespace
}  // namespace quarry::tools::client
