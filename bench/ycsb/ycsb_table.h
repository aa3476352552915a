// The YCSB comparison's one table: a row per cell with Quarry's ratios to the other stores,
// and a verdict line per goal, as text, JSON or an SVG chart.
#pragma once

#include <vector>

#include "bench/ycsb/ycsb_run.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"

namespace quarry::bench {

// Quarry should beat PostgreSQL-JSONB in every cell, and reach this share of Redis's ops/s on
// the workloads kRedisGoalWorkloads.
inline constexpr double kMinShareOfRedis = 0.60;
inline constexpr const char* kRedisGoalWorkloads = "ABCDF";

// A row per result in order; Quarry's rows carry its ops/s over PostgreSQL's and Redis's in
// the same cell. The notes end with one line per goal, "goal: ...: met" or "...: MISSED (the
// cells that missed)", or "not measured" when a store was left out.
tools::client::ResultTable YcsbTable(const YcsbSettings& settings,
                                     const std::vector<CellResult>& results);

// Bars of ops/s and p99 per row, coloured by store.
tools::client::ChartOptions YcsbChart(const tools::client::ResultTable& table);

}  // namespace quarry::bench
