#include "text/plural_stemmers.h"

#include <gtest/gtest.h>

namespace quarry::text {
namespace {

TEST(PluralStemmersTest, EnglishMinimalDropsPluralEndingsOnly) {
  EXPECT_EQ(EnglishMinimalStem("cats"), "cat");
  EXPECT_EQ(EnglishMinimalStem("ponies"), "pony");
  EXPECT_EQ(EnglishMinimalStem("plays"), "play");
  EXPECT_EQ(EnglishMinimalStem("aies"), "aies");  // too short for the ies rule: ends in "es"
  EXPECT_EQ(EnglishMinimalStem("glass"), "glass");
  EXPECT_EQ(EnglishMinimalStem("focus"), "focus");
  EXPECT_EQ(EnglishMinimalStem("toes"), "toes");
  EXPECT_EQ(EnglishMinimalStem("goes"), "goes");
  EXPECT_EQ(EnglishMinimalStem("boxes"), "boxe");
  EXPECT_EQ(EnglishMinimalStem("is"), "is");
  EXPECT_EQ(EnglishMinimalStem("running"), "running");
  EXPECT_EQ(EnglishMinimalStem("cafés"), "café");
}

TEST(PluralStemmersTest, SpanishPluralFollowsTheRulesOfPluralFormation) {
  EXPECT_EQ(SpanishPluralStem("casas"), "casa");
  EXPECT_EQ(SpanishPluralStem("coches"), "coche");
  EXPECT_EQ(SpanishPluralStem("amores"), "amor");
  EXPECT_EQ(SpanishPluralStem("leyes"), "ley");
  EXPECT_EQ(SpanishPluralStem("voces"), "voz");
  EXPECT_EQ(SpanishPluralStem("jerseis"), "jersey");
  EXPECT_EQ(SpanishPluralStem("robots"), "robot");
  EXPECT_EQ(SpanishPluralStem("reses"), "res");
  EXPECT_EQ(SpanishPluralStem("parques"), "parque");
  EXPECT_EQ(SpanishPluralStem("canciones"), "cancion");  // accents go whatever the rule
  EXPECT_EQ(SpanishPluralStem("canción"), "cancion");
  EXPECT_EQ(SpanishPluralStem("clubes"), "club");
  EXPECT_EQ(SpanishPluralStem("lunes"), "lunes");
  EXPECT_EQ(SpanishPluralStem("Crisis"), "Crisis");  // the invariants ignore case
  EXPECT_EQ(SpanishPluralStem("mes"), "mes");        // shorter than four letters
}

}  // namespace
}  // namespace quarry::text
