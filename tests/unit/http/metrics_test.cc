// /metrics' text: Prometheus's exposition format from a serverStatus document.
#include "http/metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "bson/json.h"
#include "http/prometheus_text.h"

namespace quarry::http {
namespace {

TEST(PrometheusTextTest, FamiliesHaveHelpAndTypeAndLabelsAreEscaped) {
  PrometheusText out;
  out.Family("quarry_x_total", "counter", "Things\nand back\\slashes");
  out.Sample({{"name", "a\"b\\c\nd"}}, 3);
  out.Sample(0.5);
  EXPECT_EQ(out.text(),
            "# HELP quarry_x_total Things\\nand back\\\\slashes\n"
            "# TYPE quarry_x_total counter\n"
            "quarry_x_total{name=\"a\\\"b\\\\c\\nd\"} 3\n"
            "quarry_x_total 0.5\n");
}

TEST(MetricsTest, ServerStatusFieldsBecomeMetrics) {
  auto status = bson::FromJson(R"({
    "uptimeMillis": 2500,
    "connections": {"current": 3, "totalCreated": 9},
    "network": {"bytesIn": 100, "compression": {"zstd": {
      "compressor": {"bytesIn": 1000, "bytesOut": 200},
      "decompressor": {"bytesIn": 50, "bytesOut": 150}}}},
    "opcounters": {"insert": 7, "query": 2},
    "mem": {"resident": 2},
    "metrics": {"commands": {"<UNKNOWN>": 1, "find": {"failed": 1, "total": 4, "totalMicros": 1500000}}}
  })");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  const std::string text = RenderMetrics(status.value().view(), nullptr);
  for (const char* line : {
           "quarry_uptime_seconds 2.5\n",
           "quarry_connections 3\n",
           "quarry_connections_created_total 9\n",
           "quarry_network_bytes_in_total 100\n",
           "quarry_opcounters_total{type=\"insert\"} 7\n",
           "quarry_memory_resident_bytes 2097152\n",
           "quarry_commands_total{command=\"find\"} 4\n",
           "quarry_commands_failed_total{command=\"find\"} 1\n",
           "quarry_commands_seconds_total{command=\"find\"} 1.5\n",
           "quarry_commands_unknown_total 1\n",
           "quarry_network_compression_saved_bytes{compressor=\"zstd\",direction=\"out\"} 800\n",
           "quarry_network_compression_saved_bytes{compressor=\"zstd\",direction=\"in\"} 100\n",
           "# TYPE quarry_opcounters_total counter\n",
           "# TYPE quarry_connections gauge\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  // Missing sections make no empty families.
  EXPECT_EQ(text.find("quarry_ttl"), std::string::npos);
  EXPECT_EQ(text.find("quarry_rocksdb"), std::string::npos);
}

}  // namespace
}  // namespace quarry::http
