#include "tools/dump/archive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/dump/crc64_ecma.h"

namespace quarry::tools::dumping {
namespace {

TEST(Crc64Ecma, MatchesTheCrc64XzCheckValue) {
  // Go's hash/crc64 with the ECMA table is CRC-64/XZ, whose check value this is.
  EXPECT_EQ(Crc64Ecma(0, "123456789", 9), 0x995DC9BBDF1939FAull);
  EXPECT_EQ(Crc64Ecma(Crc64Ecma(0, "12345", 5), "6789", 4), 0x995DC9BBDF1939FAull);
  EXPECT_EQ(Crc64Ecma(0, "", 0), 0u);
}

class StringSink : public ByteSink {
 public:
  Status Write(const void* data, std::size_t size) override {
    bytes.append(static_cast<const char*>(data), size);
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }
  std::string bytes;
};

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string bytes) : bytes_(std::move(bytes)) {}
  StatusWith<std::size_t> Read(void* data, std::size_t size) override {
    const std::size_t n = std::min(size, bytes_.size() - pos_);
    std::memcpy(data, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string bytes_;
  std::size_t pos_ = 0;
};

std::string Documents(const std::vector<int>& values) {
  std::string bytes;
  for (int value : values) {
    bson_t doc = BSON_INITIALIZER;
    BSON_APPEND_INT32(&doc, "_id", value);
    bytes.append(reinterpret_cast<const char*>(bson_get_data(&doc)), doc.len);
    bson_destroy(&doc);
  }
  return bytes;
}

// An archive with a.x (1, 2 | 3), a.y (4) interleaved, and an empty a.z.
std::string SampleArchive() {
  StringSink sink;
  ArchiveWriter writer(&sink);
  EXPECT_TRUE(
      writer
          .WritePrelude({.concurrent_collections = 2, .server_version = "7.0", .tool_version = "t"},
                        {{"a", "x", "{}", 10}, {"a", "y", "{}", 5}, {"a", "z", "{}", 0}})
          .ok());
  EXPECT_TRUE(writer.WriteSegment("a", "x", Documents({1, 2})).ok());
  EXPECT_TRUE(writer.WriteSegment("a", "y", Documents({4})).ok());
  EXPECT_TRUE(writer.WriteSegment("a", "x", Documents({3})).ok());
  EXPECT_TRUE(writer.EndNamespace("a", "x").ok());
  EXPECT_TRUE(writer.EndNamespace("a", "y").ok());
  EXPECT_TRUE(writer.EndNamespace("a", "z").ok());
  return sink.bytes;
}

struct ReadBack {
  std::vector<std::string> events;
  Status status = Status::OK();
};

ReadBack ReadArchive(const std::string& bytes) {
  StringSource source(bytes);
  ArchiveReader reader(&source);
  ArchiveHeader header;
  std::vector<NamespaceMetadata> prelude;
  ReadBack read;
  read.status = reader.ReadPrelude(&header, &prelude);
  if (!read.status.ok()) return read;
  EXPECT_EQ(header.concurrent_collections, 2);
  EXPECT_EQ(header.server_version, "7.0");
  EXPECT_EQ(prelude.size(), 3u);
  ArchiveReader::Event event;
  while (true) {
    auto next = reader.Next(&event);
    if (!next.ok()) {
      read.status = next.status();
      return read;
    }
    if (!next.value()) return read;
    std::string line = event.db + "." + event.collection;
    if (event.kind == ArchiveReader::Event::kDocument) {
      bson_iter_t iter;
      EXPECT_TRUE(bson_iter_init_find(&iter, event.document, "_id"));
      line += " " + std::to_string(bson_iter_int32(&iter));
    } else {
      line += " end";
    }
    read.events.push_back(line);
  }
}

TEST(Archive, RoundTripsInterleavedSegments) {
  const std::string bytes = SampleArchive();
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x6d\xe2\x99\x81", 4));
  ReadBack read = ReadArchive(bytes);
  ASSERT_TRUE(read.status.ok()) << read.status.reason();
  EXPECT_EQ(read.events, (std::vector<std::string>{"a.x 1", "a.x 2", "a.y 4", "a.x 3", "a.x end",
                                                   "a.y end", "a.z end"}));
}

TEST(Archive, DamageIsAnErrorThatSaysWhat) {
  const std::string bytes = SampleArchive();
  EXPECT_EQ(ReadArchive("garbage!").status.reason(),
            "not a readable mongodump archive: it does not start with the archive magic number");
  ReadBack truncated = ReadArchive(bytes.substr(0, bytes.size() - 30));
  EXPECT_EQ(truncated.status.code(), ErrorCode::kFailedToParse);
  std::string flipped = bytes;
  // The last byte of a.x's second segment's document: its _id value 3 becomes 7.
  const std::string three = Documents({3});
  const std::size_t at = flipped.find(three);
  ASSERT_NE(at, std::string::npos);
  flipped[at + 10] = 7;
  ReadBack corrupt = ReadArchive(flipped);
  EXPECT_EQ(corrupt.status.reason(),
            "not a readable mongodump archive: the checksum of a.x does not match its documents");
  // Without a.z's end the archive is incomplete.
  const std::string without_end =
      bytes.substr(0, bytes.rfind(std::string("\xff\xff\xff\xff", 4), bytes.size() - 5) + 4);
  EXPECT_NE(
      std::string(ReadArchive(without_end).status.reason()).find("it ends before the end of a.z"),
      std::string::npos);
}

}  // namespace
}  // namespace quarry::tools::dumping
