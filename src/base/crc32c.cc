// Polynomials are kept in the reflected order CRC-32C uses: the top bit is the coefficient of
// x^0, the lowest of x^31.
#include "base/crc32c.h"

#include <array>
#include <cstring>

#include "base/crc32c_internal.h"
#include "base/reflected_crc_table.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <wmmintrin.h>
#endif

namespace quarry {
namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78;  // Castagnoli's, reflected, without x^32
constexpr std::uint32_t kOne = 0x80000000;         // the polynomial 1

constexpr std::array<std::uint32_t, 256> kByteTable = ReflectedCrcTable(kPolynomial);

// a * b mod the polynomial.
constexpr std::uint32_t MultiplyModP(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (std::uint32_t term = kOne; term != 0; term >>= 1) {
    if ((a & term) != 0) product ^= b;
    b = (b & 1) != 0 ? (b >> 1) ^ kPolynomial : b >> 1;  // b * x
  }
  return product;
}

// Entry k: x^(8 * 2^k) mod the polynomial, which moves a CRC past 2^k bytes.
constexpr std::array<std::uint32_t, 64> MakeByteShiftTable() {
  std::array<std::uint32_t, 64> table{};
  table[0] = kOne >> 8;  // x^8
  for (std::size_t k = 1; k < table.size(); ++k)
    table[k] = MultiplyModP(table[k - 1], table[k - 1]);
  return table;
}

constexpr std::array<std::uint32_t, 64> kByteShiftTable = MakeByteShiftTable();

// Entry k >= 2: x^(8 * 2^k - 32) mod the polynomial. A carry-less product reduced by the CRC32
// instruction comes out multiplied by x^32, which these factors take back in advance.
constexpr std::array<std::uint32_t, 64> MakeReducedShiftTable() {
  std::array<std::uint32_t, 64> table{};
  table[2] = kOne;  // x^(32 - 32)
  for (std::size_t k = 3; k < table.size(); ++k) {
    table[k] = MultiplyModP(kByteShiftTable[k - 1], table[k - 1]);
  }
  return table;
}

constexpr std::array<std::uint32_t, 64> kReducedShiftTable = MakeReducedShiftTable();

// The CRC register (not inverted) after `data`, a byte at a time.
std::uint32_t UpdateByTable(std::uint32_t crc, std::string_view data) {
  for (char c : data) crc = (crc >> 8) ^ kByteTable[(crc ^ static_cast<unsigned char>(c)) & 0xFF];
  return crc;
}

// crc_a * x^(8 * b_length) mod the polynomial, a shift table entry per bit of the length.
std::uint32_t ShiftByTable(std::uint32_t crc_a, std::size_t b_length) {
  for (std::size_t k = 0; b_length != 0; ++k, b_length >>= 1) {
    if ((b_length & 1) != 0) crc_a = MultiplyModP(crc_a, kByteShiftTable[k]);
  }
  return crc_a;
}

#if defined(__x86_64__)
// UpdateByTable with SSE4.2's CRC32 instruction, eight bytes at a time.
__attribute__((target("sse4.2"))) std::uint32_t UpdateByInstruction(std::uint32_t crc,
                                                                    std::string_view data) {
  const char* p = data.data();
  std::size_t n = data.size();
  std::uint64_t wide = crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    wide = _mm_crc32_u64(wide, word);
  }
  crc = static_cast<std::uint32_t>(wide);
  for (; n > 0; --n, ++p) crc = _mm_crc32_u8(crc, static_cast<unsigned char>(*p));
  return crc;
}

// crc_a * x^(8 * b_length) mod the polynomial: the CRC32 instruction over zero bytes for the
// length's low two bits, then a carry-less product per further bit of it. The 64-bit product
// of two reflected 32-bit polynomials holds x^m at bit 62 - m; shifted left once it is the
// reflected 64-bit polynomial the instruction reduces (times x^32).
__attribute__((target("sse4.2,pclmul"))) std::uint32_t ShiftByInstruction(std::uint32_t crc_a,
                                                                          std::size_t b_length) {
  for (std::size_t i = 0; i < (b_length & 3); ++i) crc_a = _mm_crc32_u8(crc_a, 0);
  b_length >>= 2;
  for (std::size_t k = 2; b_length != 0; ++k, b_length >>= 1) {
    if ((b_length & 1) == 0) continue;
    const __m128i product =
        _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(crc_a)),
                             _mm_cvtsi32_si128(static_cast<int>(kReducedShiftTable[k])), 0);
    const auto wide = static_cast<std::uint64_t>(_mm_cvtsi128_si64(product));
    crc_a = static_cast<std::uint32_t>(_mm_crc32_u64(0, wide << 1));
  }
  return crc_a;
}

bool HasCrcInstruction() {
  __builtin_cpu_init();  // RocksDB may checksum during static initialisation
  return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
}
#else
std::uint32_t ShiftByInstruction(std::uint32_t, std::size_t) { return 0; }  // never called
std::uint32_t UpdateByInstruction(std::uint32_t, std::string_view) { return 0; }
bool HasCrcInstruction() { return false; }
#endif

}  // namespace

namespace internal {

std::uint32_t ExtendCrc32cByTable(std::uint32_t crc, std::string_view data) {
  return ~UpdateByTable(~crc, data);
}

std::uint32_t CombineCrc32cByTable(std::uint32_t crc_a, std::uint32_t crc_b, std::size_t b_length) {
  return ShiftByTable(crc_a, b_length) ^ crc_b;
}

}  // namespace internal

bool Crc32cUsesInstruction() {
  static const bool uses = HasCrcInstruction();
  return uses;
}

std::uint32_t ExtendCrc32c(std::uint32_t crc, std::string_view data) {
  if (!Crc32cUsesInstruction()) return internal::ExtendCrc32cByTable(crc, data);
  return ~UpdateByInstruction(~crc, data);
}

std::uint32_t Crc32c(std::string_view data) { return ExtendCrc32c(0, data); }

// CRC(A·B) = CRC(A) * x^(8·|B|) + CRC(B): the initial and final inversions of the two CRCs
// cancel against those of the whole.
std::uint32_t CombineCrc32c(std::uint32_t crc_a, std::uint32_t crc_b, std::size_t b_length) {
  if (!Crc32cUsesInstruction()) return internal::CombineCrc32cByTable(crc_a, crc_b, b_length);
  return ShiftByInstruction(crc_a, b_length) ^ crc_b;
}

}  // namespace quarry
