// The checks of the libmongoc client programs: each counts as passed or prints one line when it
// fails; the program ends with PrintSummary's `N passed, N failed` on stdout.
#pragma once

#include <mongoc/mongoc.h>

#include <cstdio>
#include <string>

namespace quarry_libmongoc {

inline int g_passed = 0;
inline int g_failed = 0;

inline void Check(bool ok, const std::string& round, const std::string& what,
                  const std::string& detail = "") {
  if (ok) {
    ++g_passed;
    return;
  }
  ++g_failed;
  std::fprintf(stderr, "FAILED [%s] %s%s%s\n", round.c_str(), what.c_str(),
               detail.empty() ? "" : ": ", detail.c_str());
}

inline std::string ErrorText(const bson_error_t& error) {
  return "domain " + std::to_string(error.domain) + " code " + std::to_string(error.code) + ": " +
         error.message;
}

// Prints the summary; returns the process's exit status.
inline int PrintSummary() {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}

}  // namespace quarry_libmongoc
