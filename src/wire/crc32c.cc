// CRC-32C through Boost.CRC's table-driven implementation. Drivers rarely send checksums, so a
// portable byte-at-a-time table is fast enough and needs no CPU feature detection.
#include "wire/crc32c.h"

#include <boost/crc.hpp>

namespace quarry::wire {

std::uint32_t Crc32c(std::string_view data) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

}  // namespace quarry::wire
