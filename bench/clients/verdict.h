// How the benchmarks' tables word a target's outcome and a number in their notes.
#pragma once

#include <string>

namespace quarry::bench {

// "met" or "MISSED".
std::string Verdict(bool met);
// `value` with `decimals` digits after the point.
std::string Fixed(double value, int decimals);

}  // namespace quarry::bench
