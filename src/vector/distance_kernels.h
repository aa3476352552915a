// The kernels every vector distance is made of: dot product and squared Euclidean distance on
// floats and on the 8-bit codes of scalar quantization, and the Hamming distance of bit codes,
// each with AVX2+FMA and AVX-512 (or POPCNT) versions, the widest the CPU has picked at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace quarry::vector {

// Both REQUIRE a.size() == b.size(). They use the fastest version this CPU supports.
float DotProduct(std::span<const float> a, std::span<const float> b);
float SquaredL2(std::span<const float> a, std::span<const float> b);
// On `n` unsigned 8-bit codes; exact (n <= 65536 keeps the sums within 32 bits).
std::uint32_t DotProductU8(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
std::uint32_t SquaredL2U8(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
// The number of differing bits in `words` 64-bit words (8 * words bytes, any alignment).
std::uint32_t HammingDistance(const std::uint8_t* a, const std::uint8_t* b, std::size_t words);

// The individual versions, exposed so that a test can check that they agree.
namespace kernels {
bool CpuHasAvx2Fma();
float DotProductPortable(const float* a, const float* b, std::size_t n);
float SquaredL2Portable(const float* a, const float* b, std::size_t n);
// REQUIRE CpuHasAvx2Fma().
float DotProductAvx2Fma(const float* a, const float* b, std::size_t n);
float SquaredL2Avx2Fma(const float* a, const float* b, std::size_t n);
std::uint32_t DotProductU8Portable(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
std::uint32_t SquaredL2U8Portable(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
std::uint32_t DotProductU8Avx2(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
std::uint32_t SquaredL2U8Avx2(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
// AVX-512 F and BW. REQUIRE CpuHasAvx512().
bool CpuHasAvx512();
float DotProductAvx512(const float* a, const float* b, std::size_t n);
float SquaredL2Avx512(const float* a, const float* b, std::size_t n);
std::uint32_t DotProductU8Avx512(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
std::uint32_t SquaredL2U8Avx512(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);
bool CpuHasPopcnt();
std::uint32_t HammingPortable(const std::uint8_t* a, const std::uint8_t* b, std::size_t words);
// REQUIRES CpuHasPopcnt().
std::uint32_t HammingPopcnt(const std::uint8_t* a, const std::uint8_t* b, std::size_t words);
}  // namespace kernels

}  // namespace quarry::vector
