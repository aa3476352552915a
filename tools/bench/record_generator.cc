// RecordGenerator: mirrors bench/storage_insert/storage_insert_bench.cc's MakeDocument field by
// field (same seeds, same draws in the same order), so both benchmarks insert the same data.
#include "tools/bench/record_generator.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace quarry::tools::bench {
namespace {

// 1 January 2024, 00:00 UTC: the time part of every generated ObjectId.
constexpr std::uint32_t kObjectIdEpochSeconds = 1'704'067'200;

// The storage benchmark's padding pool: 64 KiB of letters and spaces from mt19937_64(7).
const std::string& LetterPool() {
  static const std::string pool = [] {
    std::mt19937_64 pool_random(7);
    static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz     ";
    std::string letters(1 << 16, ' ');
    for (char& c : letters) c = kLetters[pool_random() % (sizeof(kLetters) - 1)];
    return letters;
  }();
  return pool;
}

void AppendUtf8(bson_t* out, std::string_view key, std::string_view value) {
  bson_append_utf8(out, key.data(), static_cast<int>(key.size()), value.data(),
                   static_cast<int>(value.size()));
}

}  // namespace

void MakeObjectId(std::uint64_t seed, std::uint64_t index, bson_oid_t* out) {
  // Big-endian time, 5 bytes of seed, 3 bytes of counter: the layout of a real ObjectId, so
  // ids sort by index as ObjectIds from one process sort by creation.
  std::uint64_t time = kObjectIdEpochSeconds + (index >> 24);
  std::uint64_t counter = index & 0xFFFFFF;
  std::uint8_t* bytes = out->bytes;
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<std::uint8_t>(time >> (8 * (3 - i)));
  for (int i = 0; i < 5; ++i) bytes[4 + i] = static_cast<std::uint8_t>(seed >> (8 * (4 - i)));
  for (int i = 0; i < 3; ++i) bytes[9 + i] = static_cast<std::uint8_t>(counter >> (8 * (2 - i)));
}

RecordGenerator::RecordGenerator(RecordOptions options)
    : options_(options), random_(options.seed) {}

void RecordGenerator::Next(bson_t* out) {
  bson_oid_t id;
  MakeObjectId(options_.seed, index_, &id);
  BSON_APPEND_OID(out, "_id", &id);
  BSON_APPEND_INT64(out, "seq", static_cast<std::int64_t>(index_));
  AppendUtf8(out, "name", "user" + std::to_string(random_.Next() % 100000));
  BSON_APPEND_DOUBLE(out, "score", static_cast<double>(random_.Next() % 10000) / 100.0);
  BSON_APPEND_DATE_TIME(out, "created", 1'700'000'000'000 + static_cast<std::int64_t>(index_));
  bson_t tags;
  BSON_APPEND_ARRAY_BEGIN(out, "tags", &tags);
  BSON_APPEND_UTF8(&tags, "0", "alpha");
  BSON_APPEND_UTF8(&tags, "1", "beta");
  bson_append_array_end(out, &tags);
  // The "text" element costs 11 bytes besides its characters, and the document's terminator 1.
  const std::string& pool = LetterPool();
  std::size_t used = out->len + 11;
  std::size_t length =
      std::min(options_.target_bytes > used ? options_.target_bytes - used : 0, pool.size() / 2);
  std::string_view text(pool.data() + random_.Next() % (pool.size() / 2), length);
  AppendUtf8(out, "text", text);
  ++index_;
}

}  // namespace quarry::tools::bench
