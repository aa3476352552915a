// JSON-lines log writer. Lines are built by hand (they are small and flat) and written whole
// under a mutex, so concurrent connections never interleave within a line.
#include "base/log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <deque>
#include <mutex>
#include <span>

#include "base/json_string.h"

namespace quarry::log {
namespace {

constexpr std::size_t kGlobalLinesKept = 1024;

struct Sink {
  std::mutex mu;
  std::FILE* file = stderr;
  bool owns_file = false;
  bool quiet = false;
  bool startup_complete = false;
  std::int64_t total_lines = 0;
  std::deque<std::string> global;
  std::vector<std::string> startup_warnings;
};

Sink& TheSink() {
  static Sink* sink = new Sink();  // never destroyed: logging may run during static teardown
  return *sink;
}

std::string NowIso8601() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buf;
}

void WriteLine(Severity severity, std::string_view component, int id, std::string_view context,
               std::string_view message, std::span<const Attr> attrs) {
  std::string line;
  line.reserve(160);
  line += R"({"t":{"$date":")";
  line += NowIso8601();
  line += R"("},"s":")";
  line += static_cast<char>(severity);
  line += R"(","c":)";
  line += Attr::Quote(component);
  line += R"(,"id":)";
  line += std::to_string(id);
  line += R"(,"ctx":)";
  line += Attr::Quote(context);
  line += R"(,"msg":)";
  line += Attr::Quote(message);
  if (attrs.size() > 0) {
    line += R"(,"attr":{)";
    bool first = true;
    for (const Attr& attr : attrs) {
      if (!first) line += ',';
      first = false;
      line += Attr::Quote(attr.key);
      line += ':';
      line += attr.value;
    }
    line += '}';
  }
  line += '}';

  Sink& sink = TheSink();
  std::lock_guard lock(sink.mu);
  ++sink.total_lines;
  std::fwrite(line.data(), 1, line.size(), sink.file);
  std::fputc('\n', sink.file);
  std::fflush(sink.file);
  if (sink.global.size() == kGlobalLinesKept) sink.global.pop_front();
  sink.global.push_back(line);
  if (!sink.startup_complete && severity == Severity::kWarning) {
    sink.startup_warnings.push_back(line);
  }
}

}  // namespace

Attr::Attr(std::string_view k, double v) : key(k) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  value = buf;
}

std::string Attr::Quote(std::string_view s) { return QuoteJson(s); }

void Configure(const Options& options) {
  Sink& sink = TheSink();
  std::lock_guard lock(sink.mu);
  sink.quiet = options.quiet;
  if (!options.path.empty()) {
    std::FILE* file = std::fopen(options.path.c_str(), options.append ? "a" : "w");
    if (file != nullptr) {
      if (sink.owns_file) std::fclose(sink.file);
      sink.file = file;
      sink.owns_file = true;
    }
  }
}

void Write(Severity severity, std::string_view component, int id, std::string_view context,
           std::string_view message, std::initializer_list<Attr> attrs) {
  WriteLine(severity, component, id, context, message, std::span(attrs.begin(), attrs.size()));
}

void Write(Severity severity, std::string_view component, int id, std::string_view context,
           std::string_view message, const std::vector<Attr>& attrs) {
  WriteLine(severity, component, id, context, message, attrs);
}

void WriteChatter(std::string_view component, int id, std::string_view context,
                  std::string_view message, std::initializer_list<Attr> attrs) {
  {
    Sink& sink = TheSink();
    std::lock_guard lock(sink.mu);
    if (sink.quiet) return;
  }
  WriteLine(Severity::kInfo, component, id, context, message,
            std::span(attrs.begin(), attrs.size()));
}

std::vector<std::string> RecentLines(std::string_view name) {
  Sink& sink = TheSink();
  std::lock_guard lock(sink.mu);
  if (name == "global") return {sink.global.begin(), sink.global.end()};
  if (name == "startupWarnings") return sink.startup_warnings;
  return {};
}

std::int64_t TotalLinesWritten() {
  Sink& sink = TheSink();
  std::lock_guard lock(sink.mu);
  return sink.total_lines;
}

void MarkStartupComplete() {
  Sink& sink = TheSink();
  std::lock_guard lock(sink.mu);
  sink.startup_complete = true;
}

}  // namespace quarry::log
