#include "base/allocator.h"

#include <malloc.h>

namespace quarry {

void TuneAllocatorForLargeMessages() {
  // Setting either value turns off glibc's own adjustment of both, so set both.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
}

}  // namespace quarry
