// Started by allocator_test.cc: reports its PID as it starts (once per start), then, after
// TuneAllocator, the GLIBC_TUNABLES it runs with and how many malloc arenas
// four threads that allocate at once end up using (malloc_info's <heap> entries), and last the
// name the kernel shows for it and what is left of the variable that carried the name across.
#include <malloc.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/allocator.h"

namespace {

int CountHeaps() {
  char* text = nullptr;
  std::size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  malloc_info(0, out);
  std::fclose(out);
  int heaps = 0;
  for (const char* at = text; (at = std::strstr(at, "<heap nr=")) != nullptr; ++at) ++heaps;
  std::free(text);
  return heaps;
}

}  // namespace

int main(int, char** argv) {
  std::printf("started %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  if (std::getenv("PROBE_ERASE_TUNABLES") != nullptr) {
    // What a glibc that drops GLIBC_TUNABLES for programs with file capabilities or the setuid
    // bit does before main. A restart that would then not recognize itself stops here.
    const char* before = std::getenv("PROBE_STARTS");
    const int starts = (before == nullptr ? 0 : std::atoi(before)) + 1;
    if (starts > 3) {
      std::printf("started again and again\n");
      return 1;
    }
    setenv("PROBE_STARTS", std::to_string(starts).c_str(), 1);
    unsetenv("GLIBC_TUNABLES");
  }
  quarry::TuneAllocator(argv);
  std::vector<std::thread> threads;
  std::vector<void*> blocks(4, nullptr);
  for (std::size_t t = 0; t < blocks.size(); ++t) {
    threads.emplace_back([&blocks, t] { blocks[t] = std::malloc(4096); });
  }
  for (std::thread& thread : threads) thread.join();
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::printf("running %d tunables=%s heaps=%d\n", static_cast<int>(getpid()),
              tunables == nullptr ? "(unset)" : tunables, CountHeaps());
  for (void* block : blocks) std::free(block);
  char name[16] = {};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  const char* carried = std::getenv("QUARRY_RESTARTED_AS");
  std::printf("name=%s carried=%s\n", name, carried == nullptr ? "(unset)" : carried);
  return 0;
}
