// Allocator tuning for a process that moves messages of tens of megabytes.
#pragma once

namespace quarry {

// Makes glibc's malloc serve buffers up to 64 MiB (a 48 MB message, its decompressed copy, a
// commit's write batch) from its heap, and keep up to 128 MiB of freed memory there instead of
// handing every large buffer back to the kernel. By default each such buffer is a fresh mmap,
// and the first touch of each of its pages is a page fault: in a bulk load that was a sixth of
// the server's time. Call once, at the start of main, before any thread starts.
void TuneAllocatorForLargeMessages();

}  // namespace quarry
