// Dot product and squared L2 on floats: a portable version and an AVX2+FMA one.
#include "vector/distance_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define QUARRY_VECTOR_X86 1
#endif

namespace quarry::vector {
namespace kernels {
namespace {

using Kernel = float (*)(const float*, const float*, std::size_t);

// Four independent accumulators let the compiler keep several multiply-adds in flight without
// reassociating floating-point sums itself (it may not, without -ffast-math).
float DotPortable(const float* a, const float* b, std::size_t n) {
  float acc[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (std::size_t lane = 0; lane < 4; ++lane) acc[lane] += a[i + lane] * b[i + lane];
  }
  float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

float L2Portable(const float* a, const float* b, std::size_t n) {
  float acc[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (std::size_t lane = 0; lane < 4; ++lane) {
      float diff = a[i + lane] - b[i + lane];
      acc[lane] += diff * diff;
    }
  }
  float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (; i < n; ++i) {
    float diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

#ifdef QUARRY_VECTOR_X86
__attribute__((target("avx2,fma"))) float HorizontalSum(__m256 v) {
  __m128 low = _mm256_castps256_ps128(v);
  __m128 high = _mm256_extractf128_ps(v, 1);
  __m128 sum = _mm_add_ps(low, high);
  sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
  sum = _mm_add_ss(sum, _mm_shuffle_ps(sum, sum, 0x1));
  return _mm_cvtss_f32(sum);
}

__attribute__((target("avx2,fma"))) float DotAvx2(const float* a, const float* b, std::size_t n) {
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
  }
  for (; i + 8 <= n; i += 8) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
  }
  float sum = HorizontalSum(_mm256_add_ps(acc0, acc1));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

__attribute__((target("avx2,fma"))) float L2Avx2(const float* a, const float* b, std::size_t n) {
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 diff0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    __m256 diff1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    acc0 = _mm256_fmadd_ps(diff0, diff0, acc0);
    acc1 = _mm256_fmadd_ps(diff1, diff1, acc1);
  }
  for (; i + 8 <= n; i += 8) {
    __m256 diff = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    acc0 = _mm256_fmadd_ps(diff, diff, acc0);
  }
  float sum = HorizontalSum(_mm256_add_ps(acc0, acc1));
  for (; i < n; ++i) {
    float diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

#else
// Elsewhere there is no AVX2: CpuHasAvx2Fma() is false and these are never chosen.
float DotAvx2(const float* a, const float* b, std::size_t n) { return DotPortable(a, b, n); }
float L2Avx2(const float* a, const float* b, std::size_t n) { return L2Portable(a, b, n); }
#endif

struct Chosen {
  Kernel dot;
  Kernel l2;
};

// Decided once: the CPU does not change under a running process.
const Chosen& ChosenKernels() {
  static const Chosen chosen =
      CpuHasAvx2Fma() ? Chosen{DotAvx2, L2Avx2} : Chosen{DotPortable, L2Portable};
  return chosen;
}

}  // namespace

bool CpuHasAvx2Fma() {
#ifdef QUARRY_VECTOR_X86
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
float DotProductPortable(const float* a, const float* b, std::size_t n) {
  return DotPortable(a, b, n);
}
float SquaredL2Portable(const float* a, const float* b, std::size_t n) {
  return L2Portable(a, b, n);
}
float DotProductAvx2Fma(const float* a, const float* b, std::size_t n) { return DotAvx2(a, b, n); }
float SquaredL2Avx2Fma(const float* a, const float* b, std::size_t n) { return L2Avx2(a, b, n); }

}  // namespace kernels

float DotProduct(std::span<const float> a, std::span<const float> b) {
  return kernels::ChosenKernels().dot(a.data(), b.data(), a.size());
}

float SquaredL2(std::span<const float> a, std::span<const float> b) {
  return kernels::ChosenKernels().l2(a.data(), b.data(), a.size());
}

}  // namespace quarry::vector
