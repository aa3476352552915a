// How the vector benchmark's tables word a target and a number in a note.
#pragma once

#include <string>

namespace quarry::bench {

// "met" or "MISSED".
std::string Verdict(bool met);
// `value` with `decimals` digits after the point.
std::string Fixed(double value, int decimals);

}  // namespace quarry::bench
