// Quantized indexes: the codes approximate the distances they stand for, a search's scores are
// the full-precision ones, exact search ignores the codes, recall holds, and the full-precision
// vectors live in a file-backed mapping when a directory is given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vector/vector_codec.h"
#include "vector/vector_index.h"
#include "vector/vector_store.h"
#include "vector_test_util.h"

namespace quarry::vector {
namespace {

using testing::BruteForce;
using testing::RandomVectors;
using testing::Recall;
using testing::ReferenceScore;
using testing::Vectors;

constexpr std::size_t kDims = 32;
constexpr std::size_t kCount = 2000;  // past kScalarTrainingVectors: the graph is built

TEST(ScalarRangeTest, LeavesOutTheTailsAndClampsThem) {
  std::vector<float> values(10000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) / 10000.0f;
  values[0] = -1000.0f;                             // an outlier does not stretch the range
  ScalarRange range = LearnScalarRange(values, 1);  // d = 1: the central 90%
  EXPECT_NEAR(range.low, 0.05, 0.001);
  EXPECT_NEAR(range.high, 0.95, 0.001);
  VectorCodec codec(2, Similarity::kEuclidean, Quantization::kScalar, range);
  std::vector<float> clamped = {-5.0f, 0.05f};
  EXPECT_EQ(codec.Distance(codec.Encode(clamped).data(), codec.Encode(clamped).data()), 0.0f);
  std::vector<float> low_corner = {0.05f, 0.05f};
  EXPECT_EQ(codec.Encode(clamped), codec.Encode(low_corner));
}

TEST(VectorCodecTest, ScalarDistancesApproximateTheFloatOnes) {
  Vectors vectors = RandomVectors(200, kDims, 1);
  std::vector<float> all;
  for (const auto& v : vectors) all.insert(all.end(), v.begin(), v.end());
  const ScalarRange range = LearnScalarRange(all, kDims);
  for (Similarity similarity : {Similarity::kEuclidean, Similarity::kDotProduct}) {
    VectorCodec codec(kDims, similarity, Quantization::kScalar, range);
    VectorCodec exact(kDims, similarity, Quantization::kNone);
    for (std::size_t i = 0; i + 1 < vectors.size(); i += 2) {
      const float want =
          exact.Distance(exact.Encode(vectors[i]).data(), exact.Encode(vectors[i + 1]).data());
      const float got =
          codec.Distance(codec.Encode(vectors[i]).data(), codec.Encode(vectors[i + 1]).data());
      // Each value moves by half a step at most (plus what the tails lose to clamping).
      EXPECT_NEAR(got, want, 0.05 * (1.0 + std::abs(want))) << SimilarityName(similarity);
    }
  }
}

TEST(VectorCodecTest, BinaryDistanceCountsTheSignsThatDiffer) {
  VectorCodec codec(70, Similarity::kCosine, Quantization::kBinary);
  EXPECT_EQ(codec.code_bytes(), 16u);  // 70 bits in two words
  std::vector<float> a(70, 1.0f), b(70, 1.0f);
  b[0] = -0.5f;
  b[69] = -2.0f;
  b[33] = 0.0f;  // zero is not positive
  EXPECT_EQ(codec.Distance(codec.Encode(a).data(), codec.Encode(b).data()), 3.0f);
}

std::vector<VectorIndex::Hit> Found(const VectorIndex& index, const std::vector<float>& query,
                                    std::size_t limit, std::size_t candidates, bool exact) {
  auto hits = index.Search(query, limit, candidates, nullptr, exact);
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits.value() : std::vector<VectorIndex::Hit>();
}

struct QuantizedCase {
  Quantization quantization;
  Similarity similarity;
  double min_recall;  // recall@10 at numCandidates 200, measured well above on these vectors
};

class QuantizedIndexTest : public ::testing::TestWithParam<QuantizedCase> {
 protected:
  VectorIndex::Options Options() const {
    return {.dimensions = kDims,
            .similarity = GetParam().similarity,
            .quantization = GetParam().quantization};
  }
  void Fill(VectorIndex& index) {
    for (std::size_t label = 0; label < vectors_.size(); ++label) {
      ASSERT_TRUE(index.Upsert(label, vectors_[label]));
    }
  }
  Vectors vectors_ = RandomVectors(kCount, kDims, 2);
  Vectors queries_ = RandomVectors(50, kDims, 3);
};

TEST_P(QuantizedIndexTest, ScoresAreFullPrecisionAndRecallHolds) {
  VectorIndex index(Options());
  Fill(index);
  const Similarity similarity = GetParam().similarity;
  auto all = [](std::uint64_t) { return true; };
  double recall = 0;
  for (const auto& query : queries_) {
    std::vector<VectorIndex::Hit> hits = Found(index, query, 10, 200, false);
    ASSERT_EQ(hits.size(), 10u);
    for (const VectorIndex::Hit& hit : hits) {
      EXPECT_NEAR(hit.score, ReferenceScore(similarity, vectors_[hit.label], query), 1e-5);
    }
    for (std::size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].score, hits[i].score);
    const auto truth = BruteForce(similarity, vectors_, query, 10, all);
    recall += Recall(hits, truth);
    // exact: true ignores the codes.
    std::vector<VectorIndex::Hit> exact = Found(index, query, 10, 10, true);
    ASSERT_EQ(exact.size(), truth.size());
    for (std::size_t i = 0; i < exact.size(); ++i) {
      EXPECT_EQ(exact[i].label, truth[i].label);
      EXPECT_NEAR(exact[i].score, truth[i].score, 1e-5);
    }
  }
  recall /= static_cast<double>(queries_.size());
  RecordProperty("recall", std::to_string(recall));
  EXPECT_GE(recall, GetParam().min_recall);
}

TEST_P(QuantizedIndexTest, ASnapshotReadBackAnswersAsTheOneWritten) {
  // Below the training size (no graph yet) and past it.
  for (std::size_t count : {std::size_t{300}, kCount}) {
    VectorIndex index(Options());
    for (std::size_t label = 0; label < count; ++label) {
      ASSERT_TRUE(index.Upsert(label, vectors_[label]));
    }
    index.Remove(3);
    ASSERT_TRUE(index.Upsert(5, vectors_[0]));
    std::string bytes;
    SnapshotWriter out(&bytes);
    index.AppendTo(out);
    SnapshotReader in(bytes);
    std::unique_ptr<VectorIndex> loaded = VectorIndex::ReadFrom(Options(), in);
    ASSERT_NE(loaded, nullptr) << count;
    EXPECT_TRUE(in.done());
    EXPECT_EQ(loaded->size(), index.size());
    for (const auto& query : queries_) {
      for (bool exact : {false, true}) {
        auto want = Found(index, query, 10, 100, exact);
        auto got = Found(*loaded, query, 10, 100, exact);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].label, want[i].label);
          EXPECT_EQ(got[i].score, want[i].score);
        }
      }
    }
    // Another quantization's reader refuses the bytes.
    VectorIndex::Options other = Options();
    other.quantization =
        other.quantization == Quantization::kNone ? Quantization::kScalar : Quantization::kNone;
    SnapshotReader again(bytes);
    EXPECT_EQ(VectorIndex::ReadFrom(other, again), nullptr);
  }
}

TEST_P(QuantizedIndexTest, CompactKeepsTheAnswers) {
  VectorIndex index(Options());
  Fill(index);
  for (std::uint64_t label = 0; label < kCount; label += 2) index.Remove(label);
  std::vector<std::vector<VectorIndex::Hit>> before;
  for (const auto& query : queries_) before.push_back(Found(index, query, 10, 10, true));
  index.Compact();
  EXPECT_EQ(index.TombstoneShare(), 0.0);
  for (std::size_t q = 0; q < queries_.size(); ++q) {
    auto after = Found(index, queries_[q], 10, 10, true);
    ASSERT_EQ(after.size(), before[q].size());
    for (std::size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].label, before[q][i].label);
  }
}

std::string CaseName(const ::testing::TestParamInfo<QuantizedCase>& info) {
  static const char* const kNames[] = {"None", "Scalar", "Binary"};
  return std::string(kNames[static_cast<int>(info.param.quantization)]) +
         std::string(SimilarityName(info.param.similarity));
}

INSTANTIATE_TEST_SUITE_P(
    Quantizations, QuantizedIndexTest,
    ::testing::Values(QuantizedCase{Quantization::kNone, Similarity::kCosine, 0.95},
                      QuantizedCase{Quantization::kScalar, Similarity::kCosine, 0.9},
                      QuantizedCase{Quantization::kScalar, Similarity::kEuclidean, 0.9},
                      QuantizedCase{Quantization::kBinary, Similarity::kCosine, 0.85}),
    CaseName);

TEST(VectorIndexFormatTest, BytesOfAnotherFormatVersionAreRefused) {
  VectorIndex::Options options{.dimensions = 4, .similarity = Similarity::kEuclidean};
  VectorIndex index(options);
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{1, 2, 3, 4}));
  std::string bytes;
  SnapshotWriter out(&bytes);
  index.AppendTo(out);
  bytes[0] = 1;  // the format version, little-endian first
  SnapshotReader in(bytes);
  EXPECT_EQ(VectorIndex::ReadFrom(options, in), nullptr);
}

TEST(VectorStoreTest, VectorsSurviveGrowthInAFileOrInMemory) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("quarry_vector_store_test_" + std::to_string(::getpid())))
                              .string();
  for (bool with_dir : {true, false}) {
    VectorStore store(3, with_dir ? dir : "");
    EXPECT_EQ(store.file_backed(), with_dir);
    for (int i = 0; i < 5000; ++i) {
      const float f = static_cast<float>(i);
      store.Append(std::vector<float>{f, -f, f / 2});
    }
    ASSERT_EQ(store.size(), 5000u);
    for (int i = 0; i < 5000; i += 499) {
      EXPECT_EQ(store.At(i)[0], static_cast<float>(i));
      EXPECT_EQ(store.At(i)[2], static_cast<float>(i) / 2);
    }
  }
  // The file has no name: nothing is left behind in the directory.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quarry::vector
