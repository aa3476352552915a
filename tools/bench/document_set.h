// DocumentSet: generated BSON documents kept back to back in one buffer, so that a benchmark
// can generate its data before the clock starts and hand the driver read-only views.
#pragma once

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace quarry::tools::bench {

class DocumentSet {
 public:
  // Copies `doc` in.
  void Append(const bson_t* doc);

  std::size_t size() const { return offsets_.size(); }  // documents
  std::size_t bytes() const { return buffer_.size(); }  // BSON bytes of all documents
  bool empty() const { return offsets_.empty(); }

  // The BSON bytes of document `index`. REQUIRES: index < size().
  std::span<const std::uint8_t> Bytes(std::size_t index) const;
  // Initialises `*out` as a read-only bson_t over document `index`, valid while this set lives
  // and is not appended to. REQUIRES: index < size().
  void View(std::size_t index, bson_t* out) const;

 private:
  std::vector<std::uint8_t> buffer_;
  std::vector<std::size_t> offsets_;
};

// Something that makes documents one after another; the sequence depends only on how it was
// constructed (its seed), never on time or machine.
class DocumentGenerator {
 public:
  virtual ~DocumentGenerator() = default;
  // Appends the fields of the next document to `*out`, which must be empty.
  virtual void Next(bson_t* out) = 0;
};

// The next `count` documents of `generator`.
DocumentSet GenerateCount(DocumentGenerator& generator, std::size_t count);
// Documents of `generator` until their BSON bytes reach `total_bytes` (at least one document).
DocumentSet GenerateBytes(DocumentGenerator& generator, std::size_t total_bytes);

}  // namespace quarry::tools::bench
