// Prometheus's text exposition format (version 0.0.4): metric families with # HELP and # TYPE
// lines, then their samples, one `name{label="value",...} number` per line.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quarry::http {

using Labels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // Starts a family. `type` is "counter" or "gauge"; a counter's name ends in _total.
  void Family(std::string_view name, std::string_view type, std::string_view help);
  // A sample of the family started last.
  void Sample(const Labels& labels, double value);
  void Sample(double value) { Sample({}, value); }

  const std::string& text() const { return out_; }

 private:
  std::string out_;
  std::string family_;
};

}  // namespace quarry::http
