// The two float kernels every vector distance is made of, dot product and squared Euclidean
// distance, with an AVX2+FMA version picked at run time when the CPU has it.
#pragma once

#include <cstddef>
#include <span>

namespace quarry::vector {

// Both REQUIRE a.size() == b.size(). They use the fastest version this CPU supports.
float DotProduct(std::span<const float> a, std::span<const float> b);
float SquaredL2(std::span<const float> a, std::span<const float> b);

// The individual versions, exposed so that a test can check that they agree.
namespace kernels {
bool CpuHasAvx2Fma();
float DotProductPortable(const float* a, const float* b, std::size_t n);
float SquaredL2Portable(const float* a, const float* b, std::size_t n);
// REQUIRE CpuHasAvx2Fma().
float DotProductAvx2Fma(const float* a, const float* b, std::size_t n);
float SquaredL2Avx2Fma(const float* a, const float* b, std::size_t n);
}  // namespace kernels

}  // namespace quarry::vector
