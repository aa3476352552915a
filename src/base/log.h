// Structured logging as JSON lines, in mongod 4.4+'s shape:
// {"t":{"$date":"..."},"s":"I","c":"NETWORK","id":22943,"ctx":"conn3","msg":"...","attr":{...}}
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quarry::log {

enum class Severity : char {
  kDebug = 'D',
  kInfo = 'I',
  kWarning = 'W',
  kError = 'E',
  kFatal = 'F'
};

// One attribute of a log line. A value given as a number or bool is written bare; a string
// is quoted and escaped.
struct Attr {
  Attr(std::string_view k, std::string_view v) : key(k), value(Quote(v)) {}
  Attr(std::string_view k, const char* v) : key(k), value(Quote(v)) {}
  Attr(std::string_view k, const std::string& v) : key(k), value(Quote(v)) {}
  Attr(std::string_view k, std::int64_t v) : key(k), value(std::to_string(v)) {}
  Attr(std::string_view k, int v) : key(k), value(std::to_string(v)) {}
  Attr(std::string_view k, std::uint64_t v) : key(k), value(std::to_string(v)) {}
  Attr(std::string_view k, double v);
  Attr(std::string_view k, bool v) : key(k), value(v ? "true" : "false") {}
  // A value that is already JSON (an object or array), written as is.
  static Attr Json(std::string_view k, std::string json) {
    Attr a(k, 0);
    a.value = std::move(json);
    return a;
  }
  static std::string Quote(std::string_view s);

  std::string_view key;
  std::string value;
};

struct Options {
  std::string path;    // empty: standard error
  bool quiet = false;  // drop Info lines about connections
  bool append = true;
};

// Configures the destination. Until called, lines go to standard error.
void Configure(const Options& options);

// Writes one line. `component` is mongod's (NETWORK, STORAGE, COMMAND, CONTROL, QUERY...).
// `id` is a stable number for the message, as mongod gives each log statement one.
void Write(Severity severity, std::string_view component, int id, std::string_view context,
           std::string_view message, std::initializer_list<Attr> attrs = {});
// The same, for attributes that depend on what happened (the slow-operation log's).
void Write(Severity severity, std::string_view component, int id, std::string_view context,
           std::string_view message, const std::vector<Attr>& attrs);

// Connection chatter that --quiet suppresses.
void WriteChatter(std::string_view component, int id, std::string_view context,
                  std::string_view message, std::initializer_list<Attr> attrs = {});

// Lines for getLog: "global" keeps the most recent lines, "startupWarnings" the warnings
// written before MarkStartupComplete(). Unknown names give an empty list.
std::vector<std::string> RecentLines(std::string_view name);
std::int64_t TotalLinesWritten();
void MarkStartupComplete();

}  // namespace quarry::log
