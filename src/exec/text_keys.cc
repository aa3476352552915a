#include "exec/text_keys.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "bson/builder.h"
#include "storage/key_encoding.h"

namespace quarry::exec {
namespace {

constexpr std::size_t kScoreBytes = 8;

}  // namespace

std::string TextTermPrefix(std::string_view term) {
  bson::DocumentBuilder holder;
  holder.AppendString("", term);
  const bson::Document doc = std::move(holder).Finish();
  return storage::EncodeIndexKey(doc.Get(""));
}

std::string TextIndexKey(std::string_view term, double score) {
  std::string key = TextTermPrefix(term);
  const auto bits = std::bit_cast<std::uint64_t>(score);
  for (int shift = 56; shift >= 0; shift -= 8) {
    key.push_back(static_cast<char>((bits >> shift) & 0xFF));
  }
  return key;
}

double ScoreOfTextKey(std::string_view key) {
  const std::size_t term_length = storage::EncodedLength(key);
  if (term_length == 0 || key.size() < term_length + kScoreBytes) return 0;
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < kScoreBytes; ++i) {
    bits = (bits << 8) | static_cast<std::uint8_t>(key[term_length + i]);
  }
  return std::bit_cast<double>(bits);
}

StatusWith<DocumentKeys> TextKeysOf(const text::TextIndexSpec& spec, bson::DocumentView doc) {
  QUARRY_ASSIGN_OR_RETURN(text::TermScores scores, spec.ScoreDocument(doc));
  DocumentKeys keys;
  keys.keys.reserve(scores.size());
  for (const auto& [term, score] : scores) {
    IndexKey key;
    key.encoded = TextIndexKey(term, score);
    keys.keys.push_back(std::move(key));
  }
  std::ranges::sort(keys.keys, {}, &IndexKey::encoded);
  return keys;
}

}  // namespace quarry::exec
