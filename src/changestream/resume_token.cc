// Resume token encoding and decoding (layout in resume_token.h).
#include "changestream/resume_token.h"

#include "base/endian.h"
#include "bson/builder.h"

namespace quarry::changestream {
namespace {

constexpr std::uint8_t kTimestampTypeByte = 0x82;  // KeyString's type byte for a Timestamp
constexpr std::size_t kUuidBytes = 16;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

Status Invalid(std::string_view why) {
  return Status(ErrorCode::kInvalidResumeToken, "Bad resume token: " + std::string(why));
}

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace

ResumeToken ResumeToken::HighWaterMark(storage::Timestamp ts) {
  ResumeToken token;
  token.ts = ts;
  token.kind = Kind::kHighWaterMark;
  return token;
}

std::string ResumeToken::ToHex() const {
  std::string raw;
  raw.reserve(48);
  raw.push_back(static_cast<char>(kTimestampTypeByte));
  AppendBigEndian(ts, 8, &raw);
  raw.push_back(static_cast<char>(kResumeTokenVersion));
  raw.push_back(static_cast<char>(kind));
  if (is_event()) {
    AppendBigEndian(txn_op_index, 4, &raw);
    raw.push_back(from_invalidate ? 1 : 0);
    raw.push_back(uuid.size() == kUuidBytes ? 1 : 0);
    if (uuid.size() == kUuidBytes) raw.append(uuid);
    AppendBigEndian(event_hash, 8, &raw);
  }
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string hex;
  hex.reserve(raw.size() * 2);
  for (char c : raw) {
    auto byte = static_cast<unsigned char>(c);
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0x0F]);
  }
  return hex;
}

bson::Document ResumeToken::ToDocument() const {
  bson::DocumentBuilder b;
  b.AppendString("_data", ToHex());
  return std::move(b).Finish();
}

StatusWith<ResumeToken> ParseResumeTokenHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return Invalid("odd number of hex digits in _data");
  std::string raw;
  raw.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]);
    int lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return Invalid("_data is not a hex string");
    raw.push_back(static_cast<char>((hi << 4) | lo));
  }
  constexpr std::size_t kHeader = 1 + 8 + 1 + 1;
  if (raw.size() < kHeader || static_cast<unsigned char>(raw[0]) != kTimestampTypeByte) {
    return Invalid("_data does not start with a timestamp");
  }
  ResumeToken token;
  token.ts = LoadBigEndian(raw.data() + 1, 8);
  if (static_cast<std::uint8_t>(raw[9]) != kResumeTokenVersion) {
    return Invalid("unsupported token version " + std::to_string(static_cast<int>(raw[9])));
  }
  const auto kind = static_cast<std::uint8_t>(raw[10]);
  if (kind == static_cast<std::uint8_t>(ResumeToken::Kind::kHighWaterMark)) {
    if (raw.size() != kHeader) return Invalid("trailing bytes after a high-water mark");
    token.kind = ResumeToken::Kind::kHighWaterMark;
    return token;
  }
  if (kind != static_cast<std::uint8_t>(ResumeToken::Kind::kEvent)) {
    return Invalid("unknown token type");
  }
  token.kind = ResumeToken::Kind::kEvent;
  std::size_t pos = kHeader;
  if (raw.size() < pos + 4 + 1 + 1) return Invalid("truncated event token");
  token.txn_op_index = static_cast<std::uint32_t>(LoadBigEndian(raw.data() + pos, 4));
  pos += 4;
  const auto invalidate = static_cast<std::uint8_t>(raw[pos++]);
  const auto has_uuid = static_cast<std::uint8_t>(raw[pos++]);
  if (invalidate > 1 || has_uuid > 1) return Invalid("bad flags in event token");
  token.from_invalidate = invalidate == 1;
  if (has_uuid == 1) {
    if (raw.size() < pos + kUuidBytes) return Invalid("truncated event token");
    token.uuid = raw.substr(pos, kUuidBytes);
    pos += kUuidBytes;
  }
  if (raw.size() != pos + 8) return Invalid("bad length of event token");
  token.event_hash = LoadBigEndian(raw.data() + pos, 8);
  return token;
}

StatusWith<ResumeToken> ParseResumeToken(bson::ValueView token) {
  if (token.type() != bson::Type::kDocument) return Invalid("expected a document");
  bson::DocumentView doc = token.Document();
  bson::ValueView data = doc.Get("_data");
  if (data.type() != bson::Type::kString) return Invalid("_data of missing or of wrong type");
  for (const bson::Element& e : doc) {
    if (e.key != "_data" && e.key != "_typeBits") {
      return Invalid("unexpected field '" + std::string(e.key) + "'");
    }
  }
  return ParseResumeTokenHex(data.String());
}

int CompareResumeTokens(const ResumeToken& a, const ResumeToken& b) {
  if (int c = Cmp(a.ts, b.ts)) return c;
  if (int c = Cmp(static_cast<int>(a.kind), static_cast<int>(b.kind))) return c;
  if (!a.is_event()) return 0;
  if (int c = Cmp(a.txn_op_index, b.txn_op_index)) return c;
  return Cmp(a.from_invalidate ? 1 : 0, b.from_invalidate ? 1 : 0);
}

}  // namespace quarry::changestream
