// VisitedSet: a node reads as visited only after it was marked in the same search, whatever
// the earlier searches marked, and the set grows with the graph.
#include "vector/visited_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace quarry::vector {
namespace {

TEST(VisitedSetTest, MarksAreSeenOnlyWithinOneSearch) {
  VisitedSet visited;
  visited.Reset(200);
  EXPECT_FALSE(visited.TestAndMark(0));
  EXPECT_FALSE(visited.TestAndMark(63));
  EXPECT_FALSE(visited.TestAndMark(64));
  EXPECT_FALSE(visited.TestAndMark(199));
  EXPECT_TRUE(visited.TestAndMark(0));
  EXPECT_TRUE(visited.TestAndMark(63));
  EXPECT_TRUE(visited.TestAndMark(64));
  EXPECT_TRUE(visited.TestAndMark(199));
  EXPECT_FALSE(visited.TestAndMark(1));

  visited.Reset(200);
  for (std::uint32_t node : {0u, 1u, 63u, 64u, 199u}) EXPECT_FALSE(visited.TestAndMark(node));
}

TEST(VisitedSetTest, GrowingKeepsNoMarkFromEarlierSearches) {
  VisitedSet visited;
  visited.Reset(10);
  EXPECT_FALSE(visited.TestAndMark(9));
  visited.Reset(100000);
  EXPECT_FALSE(visited.TestAndMark(9));
  EXPECT_FALSE(visited.TestAndMark(99999));
  EXPECT_TRUE(visited.TestAndMark(99999));
}

TEST(VisitedSetTest, ManySearchesAgreeWithASetOfTheirOwn) {
  constexpr std::uint32_t kNodes = 5000;
  std::mt19937 random(11);
  std::uniform_int_distribution<std::uint32_t> node_of(0, kNodes - 1);
  VisitedSet visited;
  for (int search = 0; search < 300; ++search) {
    visited.Reset(kNodes);
    std::set<std::uint32_t> seen;
    for (int step = 0; step < 400; ++step) {
      const std::uint32_t node = node_of(random);
      ASSERT_EQ(visited.TestAndMark(node), !seen.insert(node).second) << "search " << search;
    }
  }
}

TEST(VisitedSetTest, ThePoolLendsResetSets) {
  VisitedPool pool;
  {
    VisitedPool::Lease lease = pool.Borrow(1000);
    EXPECT_FALSE((*lease).TestAndMark(500));
  }
  VisitedPool::Lease again = pool.Borrow(1000);
  EXPECT_FALSE((*again).TestAndMark(500));
  EXPECT_TRUE((*again).TestAndMark(500));
}

}  // namespace
}  // namespace quarry::vector
