#include "http/prometheus_text.h"

#include <charconv>
#include <cmath>

namespace quarry::http {
namespace {

// HELP text escapes backslash and newline; label values also the double quote.
void AppendEscaped(std::string_view text, bool quote, std::string* out) {
  for (char c : text) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else if (quote && c == '"') {
      out->append("\\\"");
    } else {
      out->push_back(c);
    }
  }
}

void AppendNumber(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
  } else {
    char buffer[32];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out->append(buffer, end);
  }
}

}  // namespace

void PrometheusText::Family(std::string_view name, std::string_view type, std::string_view help) {
  family_.assign(name);
  out_.append("# HELP ").append(name).push_back(' ');
  AppendEscaped(help, /*quote=*/false, &out_);
  out_.append("\n# TYPE ").append(name).push_back(' ');
  out_.append(type).push_back('\n');
}

void PrometheusText::Sample(const Labels& labels, double value) {
  out_.append(family_);
  if (!labels.empty()) {
    out_.push_back('{');
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out_.push_back(',');
      out_.append(labels[i].first).append("=\"");
      AppendEscaped(labels[i].second, /*quote=*/true, &out_);
      out_.push_back('"');
    }
    out_.push_back('}');
  }
  out_.push_back(' ');
  AppendNumber(value, &out_);
  out_.push_back('\n');
}

}  // namespace quarry::http
