// The Zipfian draw inverts an approximation of the distribution function, so each draw costs
// two pow() calls whatever the number of items; only zeta(n) needs a sum over the items.
#include "bench/ycsb/zipfian.h"

#include <algorithm>
#include <cmath>

namespace quarry::bench {
namespace {

// Terms of zeta summed one by one; past this, the remainder's closed form is exact to double
// precision (its first neglected term is about f'''(m) / 720).
constexpr std::uint64_t kExactZetaTerms = std::uint64_t{1} << 20;

// The scrambled Zipfian draws ranks over this many items, far more than any key space here,
// so it does not depend on how many keys there are now.
constexpr std::uint64_t kScrambledRanks = 10'000'000'000;

// The sum over i = from + 1 .. to of 1/i^theta, term by term.
double SumTerms(std::uint64_t from, std::uint64_t to, double theta) {
  double sum = 0;
  for (std::uint64_t i = from + 1; i <= to; ++i) sum += std::pow(static_cast<double>(i), -theta);
  return sum;
}

}  // namespace

double Zeta(std::uint64_t n, double theta) {
  if (n <= kExactZetaTerms) return SumTerms(0, n, theta);
  // Euler-Maclaurin for f(x) = x^-theta over (m, n]: the integral, half the end difference and
  // the first derivative correction.
  const double m = static_cast<double>(kExactZetaTerms);
  const double x = static_cast<double>(n);
  const double integral = theta == 1.0
                              ? std::log(x / m)
                              : (std::pow(x, 1 - theta) - std::pow(m, 1 - theta)) / (1 - theta);
  const double ends = (std::pow(x, -theta) - std::pow(m, -theta)) / 2;
  const double slopes = -theta * (std::pow(x, -theta - 1) - std::pow(m, -theta - 1)) / 12;
  return SumTerms(0, kExactZetaTerms, theta) + integral + ends + slopes;
}

double UnitInterval(std::mt19937_64& random) {
  return static_cast<double>(random() >> 11) * 0x1.0p-53;
}

ZipfianGenerator::ZipfianGenerator(std::uint64_t items, double theta)
    : items_(std::max<std::uint64_t>(items, 1)),
      theta_(theta),
      zeta_two_(Zeta(2, theta)),
      zeta_items_(Zeta(items_, theta)) {
  DeriveConstants();
}

void ZipfianGenerator::Grow(std::uint64_t items) {
  if (items <= items_) return;
  // Inserts grow the range a few keys at a time: adding the new terms is cheaper than a new sum.
  zeta_items_ = items - items_ > kExactZetaTerms ? Zeta(items, theta_)
                                                 : zeta_items_ + SumTerms(items_, items, theta_);
  items_ = items;
  DeriveConstants();
}

void ZipfianGenerator::DeriveConstants() {
  alpha_ = 1 / (1 - theta_);
  eta_ =
      (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta_two_ / zeta_items_);
}

std::uint64_t ZipfianGenerator::Next(std::mt19937_64& random) const {
  const double u = UnitInterval(random);
  const double scaled = u * zeta_items_;
  // The first two items take their exact shares; the rest come from the inverted approximation.
  if (scaled < 1 || items_ == 1) return 0;
  if (scaled < 1 + std::pow(0.5, theta_)) return 1;
  const double rank = static_cast<double>(items_) * std::pow(eta_ * u - eta_ + 1, alpha_);
  return std::min(static_cast<std::uint64_t>(rank), items_ - 1);
}

std::uint64_t Fnv1a64(std::uint64_t value) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (int byte_idx = 0; byte_idx < 8; ++byte_idx) {
    hash ^= (value >> (8 * byte_idx)) & 0xff;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

namespace {

// Shared read-only by every thread: the ranks do not depend on how many keys there are.
const ZipfianGenerator& ScrambledRanks() {
  static const ZipfianGenerator ranks(kScrambledRanks);
  return ranks;
}

}  // namespace

ScrambledZipfianChooser::ScrambledZipfianChooser() : ranks_(ScrambledRanks()) {}

std::uint64_t ScrambledZipfianChooser::Next(std::mt19937_64& random, std::uint64_t items) const {
  return Fnv1a64(ranks_.Next(random)) % items;
}

std::uint64_t LatestChooser::Next(std::mt19937_64& random, std::uint64_t items) {
  recency_.Grow(items);
  return items - 1 - std::min(recency_.Next(random), items - 1);
}

}  // namespace quarry::bench
