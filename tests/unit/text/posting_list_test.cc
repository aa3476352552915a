#include "text/posting_list.h"

#include <gtest/gtest.h>

#include <vector>

namespace quarry::text {
namespace {

std::vector<std::uint32_t> Labels(const PostingList& list) {
  std::vector<std::uint32_t> labels;
  for (const auto& [label, positions] : list) labels.push_back(label);
  return labels;
}

TEST(PostingListTest, KeepsLabelsInOrderAndSkipsRemovedOnes) {
  PostingList list;
  for (std::uint32_t label : {1u, 5u, 9u}) list[label].push_back(label * 10);
  list[5].push_back(51);
  list[3].push_back(30);  // an older label goes in its place
  EXPECT_EQ(Labels(list), (std::vector<std::uint32_t>{1, 3, 5, 9}));
  EXPECT_EQ(*list.Find(5), (Positions{50, 51}));
  list.erase(5);
  list.erase(5);  // twice is harmless
  list.erase(7);  // never held
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(list.Find(5), nullptr);
  EXPECT_EQ(Labels(list), (std::vector<std::uint32_t>{1, 3, 9}));
  list[5].push_back(52);  // set again: the tombstone comes back to life
  EXPECT_EQ(*list.Find(5), (Positions{52}));
  EXPECT_EQ(list.size(), 4u);
}

TEST(PostingListTest, DropsTombstonesOnceTheyOutnumberTheLiving) {
  PostingList list;
  for (std::uint32_t label = 0; label < 100; ++label) list[label].push_back(0);
  for (std::uint32_t label = 0; label < 90; ++label) list.erase(label);
  EXPECT_EQ(list.size(), 10u);
  EXPECT_EQ(Labels(list).front(), 90u);
  for (std::uint32_t label = 0; label < 90; ++label) EXPECT_EQ(list.Find(label), nullptr);
  list[200].push_back(1);
  EXPECT_EQ(Labels(list).back(), 200u);
  list.erase(200);
  list.erase(95);
  EXPECT_TRUE(!list.empty());
}

TEST(PositionsTest, HoldsOneInPlaceAndMoreInABlockThatGrows) {
  Positions positions;
  EXPECT_TRUE(positions.empty());
  std::vector<std::uint32_t> expected;
  for (std::uint32_t p = 0; p < 100; p += 3) {
    positions.push_back(p);
    expected.push_back(p);
    EXPECT_EQ(std::vector<std::uint32_t>(positions.begin(), positions.end()), expected);
  }
  Positions copy = positions;
  Positions moved = std::move(positions);
  EXPECT_TRUE(positions.empty());  // NOLINT(bugprone-use-after-move): a moved list is empty
  EXPECT_EQ(copy, moved);
  EXPECT_EQ(moved[5], 15u);
  copy = Positions{7};
  EXPECT_EQ(std::vector<std::uint32_t>(copy.begin(), copy.end()), (std::vector<std::uint32_t>{7}));
  moved.clear();
  EXPECT_TRUE(moved.empty());
}

}  // namespace
}  // namespace quarry::text
