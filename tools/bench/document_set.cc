// DocumentSet and the helpers that fill one from a generator.
#include "tools/bench/document_set.h"

#include <cstring>

namespace quarry::tools::bench {

void DocumentSet::Append(const bson_t* doc) {
  offsets_.push_back(buffer_.size());
  const std::uint8_t* data = bson_get_data(doc);
  buffer_.insert(buffer_.end(), data, data + doc->len);
}

std::span<const std::uint8_t> DocumentSet::Bytes(std::size_t index) const {
  std::size_t begin = offsets_[index];
  std::size_t end = index + 1 < offsets_.size() ? offsets_[index + 1] : buffer_.size();
  return {buffer_.data() + begin, end - begin};
}

void DocumentSet::View(std::size_t index, bson_t* out) const {
  std::span<const std::uint8_t> bytes = Bytes(index);
  // Cannot fail: the bytes were copied from a valid bson_t.
  bson_init_static(out, bytes.data(), bytes.size());
}

DocumentSet GenerateCount(DocumentGenerator& generator, std::size_t count) {
  DocumentSet set;
  bson_t doc = BSON_INITIALIZER;
  for (std::size_t i = 0; i < count; ++i) {
    bson_reinit(&doc);
    generator.Next(&doc);
    set.Append(&doc);
  }
  bson_destroy(&doc);
  return set;
}

DocumentSet GenerateBytes(DocumentGenerator& generator, std::size_t total_bytes) {
  DocumentSet set;
  bson_t doc = BSON_INITIALIZER;
  do {
    bson_reinit(&doc);
    generator.Next(&doc);
    set.Append(&doc);
  } while (set.bytes() < total_bytes);
  bson_destroy(&doc);
  return set;
}

}  // namespace quarry::tools::bench
