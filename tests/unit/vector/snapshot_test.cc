// Snapshots: an index read back answers exactly as the one written, and a torn, corrupted or
// foreign file is recognised instead of being read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "vector/snapshot_file.h"
#include "vector/vector_index.h"
#include "vector_test_util.h"

namespace quarry::vector {
namespace {

using testing::RandomVectors;

TEST(SnapshotTest, AnIndexReadBackAnswersAsTheOneWritten) {
  VectorIndex::Options options{.dimensions = 16, .similarity = Similarity::kCosine};
  VectorIndex index(options);
  std::vector<std::vector<float>> vectors = RandomVectors(500, 16, 3);
  for (std::uint64_t label = 0; label < vectors.size(); ++label) {
    ASSERT_TRUE(index.Upsert(label * 7, vectors[label]));
  }
  index.Remove(7);
  ASSERT_TRUE(index.Upsert(14, vectors[0]));  // moved: a tombstone and a new node
  std::string bytes;
  SnapshotWriter out(&bytes);
  index.AppendTo(out);
  SnapshotReader in(bytes);
  std::unique_ptr<VectorIndex> loaded = VectorIndex::ReadFrom(options, in);
  ASSERT_NE(loaded, nullptr);
  EXPECT_TRUE(in.done());
  EXPECT_EQ(loaded->size(), index.size());
  EXPECT_DOUBLE_EQ(loaded->TombstoneShare(), index.TombstoneShare());
  for (const std::vector<float>& query : RandomVectors(20, 16, 4)) {
    for (bool exact : {false, true}) {
      auto expected = index.Search(query, 10, 40, nullptr, exact);
      auto got = loaded->Search(query, 10, 40, nullptr, exact);
      ASSERT_TRUE(expected.ok() && got.ok());
      ASSERT_EQ(got.value().size(), expected.value().size());
      for (std::size_t i = 0; i < got.value().size(); ++i) {
        EXPECT_EQ(got.value()[i].label, expected.value()[i].label);
        EXPECT_EQ(got.value()[i].score, expected.value()[i].score);
      }
    }
  }
  // Every prefix of the bytes is refused, never read as an index.
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    SnapshotReader torn(std::string_view(bytes).substr(0, cut));
    EXPECT_EQ(VectorIndex::ReadFrom(options, torn), nullptr) << cut;
  }
}

class SnapshotFileTest : public ::testing::Test {
 protected:
  std::string path_ = (std::filesystem::temp_directory_path() /
                       ("quarry_snapshot_test_" + std::to_string(::getpid())))
                          .string();
  void TearDown() override { std::filesystem::remove(path_); }
};

TEST_F(SnapshotFileTest, APayloadWrittenIsReadBack) {
  const std::string payload(100000, 'x');
  ASSERT_TRUE(WriteSnapshotFile(path_, payload).ok());
  auto read = ReadSnapshotFile(path_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read.value(), payload);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp"));
}

TEST_F(SnapshotFileTest, AMissingTornOrCorruptedFileIsRefused) {
  EXPECT_EQ(ReadSnapshotFile(path_).status().code(), ErrorCode::kNoSuchKey);
  ASSERT_TRUE(WriteSnapshotFile(path_, std::string(1000, 'y')).ok());
  std::filesystem::resize_file(path_, 700);
  EXPECT_EQ(ReadSnapshotFile(path_).status().code(), ErrorCode::kInternalError);
  ASSERT_TRUE(WriteSnapshotFile(path_, std::string(1000, 'y')).ok());
  {
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(500);
    file.put('z');
  }
  auto corrupt = ReadSnapshotFile(path_);
  EXPECT_EQ(corrupt.status().code(), ErrorCode::kInternalError);
  EXPECT_NE(corrupt.status().reason().find("checksum"), std::string::npos);
  std::ofstream(path_, std::ios::trunc) << "not a snapshot at all";
  EXPECT_EQ(ReadSnapshotFile(path_).status().code(), ErrorCode::kInternalError);
}

}  // namespace
}  // namespace quarry::vector
