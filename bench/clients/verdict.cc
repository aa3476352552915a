#include "bench/clients/verdict.h"

#include <cstdio>

namespace quarry::bench {

std::string Verdict(bool met) { return met ? "met" : "MISSED"; }

std::string Fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace quarry::bench
