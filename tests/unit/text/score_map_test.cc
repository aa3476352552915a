#include "text/score_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace quarry::text {
namespace {

std::map<std::uint32_t, double> Contents(const ScoreMap& scores) {
  return {scores.begin(), scores.end()};
}

TEST(ScoreMapTest, AddsFindsAndErasesAsAMapDoes) {
  ScoreMap scores;
  EXPECT_TRUE(scores.empty());
  EXPECT_FALSE(scores.contains(3));
  scores.erase(3);  // nothing to erase
  scores[3] += 1.5;
  scores[3] += 1.0;
  scores[7] = 2;
  EXPECT_EQ(Contents(scores), (std::map<std::uint32_t, double>{{3, 2.5}, {7, 2}}));
  EXPECT_EQ(scores.at(7), 2);
  scores.erase(3);
  EXPECT_FALSE(scores.contains(3));
  EXPECT_EQ(scores.size(), 1u);
}

TEST(ScoreMapTest, AgreesWithAStdMapThroughRandomChanges) {
  std::mt19937 random(7);
  ScoreMap scores;
  std::map<std::uint32_t, double> expected;
  for (int step = 0; step < 200000; ++step) {
    // Labels from a small range collide and form long probe runs, which erasing must keep whole.
    const std::uint32_t label = random() % (step < 100000 ? 3000 : 200000);
    switch (random() % 4) {
      case 0:
      case 1:
        scores[label] += 1;
        expected[label] += 1;
        break;
      case 2:
        scores.erase(label);
        expected.erase(label);
        break;
      default:
        EXPECT_EQ(scores.contains(label), expected.contains(label));
        break;
    }
    if (step % 50000 == 49999) {
      scores.EraseIf([](const auto& entry) { return entry.first % 3 == 0; });
      std::erase_if(expected, [](const auto& entry) { return entry.first % 3 == 0; });
      EXPECT_EQ(Contents(scores), expected);
    }
  }
  EXPECT_EQ(scores.size(), expected.size());
  EXPECT_EQ(Contents(scores), expected);
}

}  // namespace
}  // namespace quarry::text
