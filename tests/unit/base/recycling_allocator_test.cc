#include "base/recycling_allocator.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <memory>
#include <thread>

namespace quarry {
namespace {

struct Big {
  std::array<char, 2048> bytes{};
  int value = 0;
};

// Counts live objects, to show the object's destructor runs when the last owner lets go even
// though its block stays with the thread.
struct Counted {
  static inline std::atomic<int> alive{0};
  Counted() { ++alive; }
  ~Counted() { --alive; }
  std::array<char, 1500> bytes{};
};

TEST(RecyclingAllocatorTest, TheNextAllocationOnAThreadReusesTheBlockItFreedLast) {
  RecyclingAllocator<Big> allocator;
  Big* first = allocator.allocate(1);
  allocator.deallocate(first, 1);
  Big* second = allocator.allocate(1);
  EXPECT_EQ(second, first);
  Big* third = allocator.allocate(1);  // the slot is empty now: a fresh block
  EXPECT_NE(third, second);
  allocator.deallocate(second, 1);
  allocator.deallocate(third, 1);  // the slot is taken: this one goes back to the heap
}

TEST(RecyclingAllocatorTest, SharedObjectsAreDestroyedWhenReleasedAndTheirBlockReused) {
  const void* first_address = nullptr;
  {
    auto first = std::allocate_shared<Counted>(RecyclingAllocator<Counted>());
    first_address = first.get();
    EXPECT_EQ(Counted::alive.load(), 1);
  }
  EXPECT_EQ(Counted::alive.load(), 0);
  auto second = std::allocate_shared<Counted>(RecyclingAllocator<Counted>());
  EXPECT_EQ(second.get(), first_address);
  EXPECT_EQ(Counted::alive.load(), 1);
}

TEST(RecyclingAllocatorTest, ABlockFreedOnAnotherThreadStaysWithThatThread) {
  RecyclingAllocator<Big> allocator;
  Big* made_here = allocator.allocate(1);
  Big* reused_there = nullptr;
  std::thread([&] {
    allocator.deallocate(made_here, 1);
    reused_there = allocator.allocate(1);
    allocator.deallocate(reused_there, 1);  // freed with the thread's slot when it exits
  }).join();
  EXPECT_EQ(reused_there, made_here);
  Big* made_again = allocator.allocate(1);
  made_again->value = 7;  // a usable block of its own, whatever the address
  EXPECT_EQ(made_again->value, 7);
  allocator.deallocate(made_again, 1);
}

TEST(RecyclingAllocatorTest, ArraysBypassTheSlot) {
  RecyclingAllocator<Big> allocator;
  Big* one = allocator.allocate(1);
  allocator.deallocate(one, 1);
  Big* array = allocator.allocate(3);
  EXPECT_NE(array, one);
  allocator.deallocate(array, 3);
  EXPECT_EQ(allocator.allocate(1), one);
  allocator.deallocate(one, 1);
}

}  // namespace
}  // namespace quarry
