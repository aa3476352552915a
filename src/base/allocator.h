// Allocator tuning for a process that moves messages of tens of megabytes.
#pragma once

namespace quarry {

// Tunes glibc's malloc for this process. Call first in main, before anything else has run.
//
// glibc reads two settings only from the environment as a process starts, so the call first
// starts the program again in place (same PID, arguments and process name) with them added to
// GLIBC_TUNABLES: one malloc arena for every thread, and transparent huge pages for it. With an
// arena per thread, memory one thread frees (a flushed memtable, a message's buffer) is fresh
// memory to the next thread that needs as much, and where a page fault is dear, as on a
// virtualized host, each first touch of a 4 KiB page costs more than the work that touches it:
// on a paravirtualized guest a 10 MB document's put and get took ~3,400 faults at ~16 us each,
// against ~10 with these settings. In the restarted process GLIBC_TUNABLES is put back as it
// was given, so that programs it starts inherit that. There is no restart when GLIBC_TUNABLES
// already names an arena or huge-page setting (the user's choice), under valgrind (whose tools
// follow no exec by default), or when the restart fails.
//
// Then it makes malloc serve buffers up to 64 MiB (a 48 MB message, its decompressed copy, a
// commit's write batch) from its heap, and keep up to 128 MiB of freed memory there instead of
// handing every large buffer back to the kernel. By default each such buffer is a fresh mmap,
// and the first touch of each of its pages is a page fault: in a bulk load that was a sixth of
// the server's time.
void TuneAllocator(char** argv);

}  // namespace quarry
