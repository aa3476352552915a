// An allocator for an object made and destroyed once per request that is too large for
// malloc's per-thread cache (glibc caches chunks of at most 1,032 bytes): each thread keeps the
// last block of this type it freed and hands it to its next allocation. Without it every such
// allocation takes the shared arena's path for large chunks, which first merges every small free
// chunk in the arena (malloc_consolidate): 1–1.5% of an insert_one's server time.
//
// A block may be freed on another thread than the one that allocated it (a command that ran on
// a worker); it then waits in that thread's slot, and the allocating thread takes a new one.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace quarry {

template <class T>
class RecyclingAllocator {
 public:
  using value_type = T;

  RecyclingAllocator() = default;
  template <class U>
  RecyclingAllocator(const RecyclingAllocator<U>&) noexcept {}  // NOLINT: as std::allocator

  T* allocate(std::size_t n) {
    if (n == 1) {
      if (void* block = std::exchange(Slot().block, nullptr)) return static_cast<T*>(block);
    }
    return std::allocator<T>().allocate(n);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n == 1 && Slot().block == nullptr) {
      Slot().block = p;
      return;
    }
    std::allocator<T>().deallocate(p, n);
  }

  template <class U>
  bool operator==(const RecyclingAllocator<U>&) const noexcept {
    return true;
  }

 private:
  struct Kept {
    void* block = nullptr;
    ~Kept() {
      if (block != nullptr) std::allocator<T>().deallocate(static_cast<T*>(block), 1);
    }
  };
  static Kept& Slot() {
    thread_local Kept kept;
    return kept;
  }
};

}  // namespace quarry
