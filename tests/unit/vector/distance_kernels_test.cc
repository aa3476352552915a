// The portable, AVX2+FMA (POPCNT) and AVX-512 kernels agree with a naive loop on every length,
// including the tails their unrolled loops leave (up to two of AVX-512's 64-float steps).
#include "vector/distance_kernels.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "vector_test_util.h"

namespace quarry::vector {
namespace {

struct Naive {
  double dot = 0;
  double squared_l2 = 0;
};

Naive NaiveKernels(const std::vector<float>& a, const std::vector<float>& b) {
  Naive naive;
  for (std::size_t i = 0; i < a.size(); ++i) {
    naive.dot += double{a[i]} * b[i];
    naive.squared_l2 += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  }
  return naive;
}

using Kernel = float (*)(const float*, const float*, std::size_t);

void ExpectAgreesWithNaive(Kernel dot, Kernel squared_l2) {
  for (std::size_t length = 0; length <= 140; ++length) {
    testing::Vectors pair = testing::RandomVectors(2, length, 1000 + length);
    Naive naive = NaiveKernels(pair[0], pair[1]);
    double tolerance = 1e-5 * (1.0 + static_cast<double>(length));
    EXPECT_NEAR(dot(pair[0].data(), pair[1].data(), length), naive.dot, tolerance) << length;
    EXPECT_NEAR(squared_l2(pair[0].data(), pair[1].data(), length), naive.squared_l2, tolerance)
        << length;
  }
}

TEST(DistanceKernelsTest, PortableKernelsAgreeWithNaiveLoop) {
  ExpectAgreesWithNaive(kernels::DotProductPortable, kernels::SquaredL2Portable);
}

TEST(DistanceKernelsTest, Avx2FmaKernelsAgreeWithNaiveLoop) {
  if (!kernels::CpuHasAvx2Fma()) GTEST_SKIP() << "this CPU has no AVX2+FMA";
  ExpectAgreesWithNaive(kernels::DotProductAvx2Fma, kernels::SquaredL2Avx2Fma);
}

TEST(DistanceKernelsTest, Avx512KernelsAgreeWithNaiveLoop) {
  if (!kernels::CpuHasAvx512()) GTEST_SKIP() << "this CPU has no AVX-512";
  ExpectAgreesWithNaive(kernels::DotProductAvx512, kernels::SquaredL2Avx512);
}

using CodeKernel = std::uint32_t (*)(const std::uint8_t*, const std::uint8_t*, std::size_t);

// Byte and bit codes have exact answers: every version must give them on every length.
void ExpectCodeKernelsExact(CodeKernel dot, CodeKernel squared_l2, CodeKernel hamming) {
  std::mt19937 rng(5);
  for (std::size_t length = 0; length <= 140; ++length) {
    std::vector<std::uint8_t> a(length * 8), b(length * 8);
    for (std::uint8_t& v : a) v = static_cast<std::uint8_t>(rng());
    for (std::uint8_t& v : b) v = static_cast<std::uint8_t>(rng());
    std::uint32_t want_dot = 0, want_l2 = 0, want_bits = 0;
    for (std::size_t i = 0; i < length; ++i) {
      want_dot += std::uint32_t{a[i]} * b[i];
      want_l2 += static_cast<std::uint32_t>((int{a[i]} - b[i]) * (int{a[i]} - b[i]));
    }
    for (std::size_t i = 0; i < length * 8; ++i) want_bits += std::popcount<unsigned>(a[i] ^ b[i]);
    EXPECT_EQ(dot(a.data(), b.data(), length), want_dot) << length;
    EXPECT_EQ(squared_l2(a.data(), b.data(), length), want_l2) << length;
    EXPECT_EQ(hamming(a.data(), b.data(), length), want_bits) << length;
  }
}

TEST(DistanceKernelsTest, PortableCodeKernelsAreExact) {
  ExpectCodeKernelsExact(kernels::DotProductU8Portable, kernels::SquaredL2U8Portable,
                         kernels::HammingPortable);
}

TEST(DistanceKernelsTest, Avx2AndPopcntCodeKernelsAreExact) {
  if (!kernels::CpuHasAvx2Fma() || !kernels::CpuHasPopcnt()) {
    GTEST_SKIP() << "this CPU has no AVX2 or POPCNT";
  }
  ExpectCodeKernelsExact(kernels::DotProductU8Avx2, kernels::SquaredL2U8Avx2,
                         kernels::HammingPopcnt);
}

TEST(DistanceKernelsTest, Avx512CodeKernelsAreExact) {
  if (!kernels::CpuHasAvx512() || !kernels::CpuHasPopcnt()) {
    GTEST_SKIP() << "this CPU has no AVX-512 or POPCNT";
  }
  ExpectCodeKernelsExact(kernels::DotProductU8Avx512, kernels::SquaredL2U8Avx512,
                         kernels::HammingPopcnt);
}

TEST(DistanceKernelsTest, DispatchedKernelsComputeHandValues) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> b = {9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_FLOAT_EQ(DotProduct(a, b), 165.0f);
  EXPECT_FLOAT_EQ(SquaredL2(a, b), 240.0f);
}

}  // namespace
}  // namespace quarry::vector
