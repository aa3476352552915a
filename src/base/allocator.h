// Allocator tuning for a process that moves messages of tens of megabytes.
#pragma once

namespace quarry {

// Makes glibc's malloc serve buffers up to 64 MiB (a 48 MB message, its decompressed copy, a
// commit's write batch) from its heap, and keep up to 128 MiB of freed memory there instead of
// handing every large buffer back to the kernel. By default each such buffer is a fresh mmap,
// and the first touch of each of its pages is a page fault: in a bulk load that was a sixth of
// the server's time. Call once, at the start of main, before any thread starts.
void TuneAllocatorForLargeMessages();

// glibc reads two more settings only from the environment as a process starts, so the first
// call starts the program again in place (same PID and arguments) with them added to
// GLIBC_TUNABLES: one malloc arena for every thread, and transparent huge pages for it. With an
// arena per thread, memory one thread frees (a flushed memtable, a message's buffer) is fresh
// memory to the next thread that needs as much, and where a page fault is dear, as on a
// virtualized host, each first touch of a 4 KiB page costs more than the work that touches it:
// on a paravirtualized guest a 10 MB document's put and get took ~3,400 faults at ~16 us each,
// against ~10 with these settings. In the restarted process the call restores GLIBC_TUNABLES,
// so that programs it starts inherit the environment it was given. Nothing happens when
// GLIBC_TUNABLES already names an arena or huge-page setting (the user's choice), under
// valgrind (whose tools follow no exec by default), or when the restart fails. Call first in
// main, before anything else has run.
void RestartWithAllocatorSettings(char** argv);

}  // namespace quarry
