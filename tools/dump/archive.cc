#include "tools/dump/archive.h"

#include <cstring>

#include "tools/dump/bson_fields.h"
#include "tools/dump/crc64_ecma.h"

namespace quarry::tools::dumping {
namespace {

constexpr std::uint32_t kTerminator = 0xFFFFFFFF;
// A document can be 16 MiB; the server's limit plus room for what a newer server might allow.
constexpr std::uint32_t kMaxDocumentBytes = 48 * 1024 * 1024;

std::string Key(const std::string& db, const std::string& collection) {
  return db + "." + collection;
}

Status Damaged(const std::string& why) {
  return Status(ErrorCode::kFailedToParse, "not a readable mongodump archive: " + why);
}

void AppendLittleEndian32(std::uint32_t value, std::string* out) {
  for (int shift = 0; shift < 32; shift += 8) out->push_back(static_cast<char>(value >> shift));
}

std::uint32_t LittleEndian32(const char* bytes) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

Status ArchiveWriter::WriteDocument(const bson_t* document) {
  return sink_->Write(bson_get_data(document), document->len);
}

Status ArchiveWriter::WriteTerminator() {
  std::string bytes;
  AppendLittleEndian32(kTerminator, &bytes);
  return sink_->Write(bytes.data(), bytes.size());
}

Status ArchiveWriter::WritePrelude(const ArchiveHeader& header,
                                   const std::vector<NamespaceMetadata>& namespaces) {
  std::lock_guard lock(mutex_);
  std::string magic;
  AppendLittleEndian32(kArchiveMagic, &magic);
  QUARRY_RETURN_IF_ERROR(sink_->Write(magic.data(), magic.size()));
  bson_t doc = BSON_INITIALIZER;
  BSON_APPEND_INT32(&doc, "concurrent_collections", header.concurrent_collections);
  BSON_APPEND_UTF8(&doc, "version", header.version.c_str());
  BSON_APPEND_UTF8(&doc, "server_version", header.server_version.c_str());
  BSON_APPEND_UTF8(&doc, "tool_version", header.tool_version.c_str());
  Status written = WriteDocument(&doc);
  bson_destroy(&doc);
  QUARRY_RETURN_IF_ERROR(written);
  for (const NamespaceMetadata& ns : namespaces) {
    bson_t entry = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&entry, "db", ns.db.c_str());
    BSON_APPEND_UTF8(&entry, "collection", ns.collection.c_str());
    BSON_APPEND_UTF8(&entry, "metadata", ns.metadata.c_str());
    if (ns.size <= INT32_MAX) {
      BSON_APPEND_INT32(&entry, "size", static_cast<std::int32_t>(ns.size));
    } else {
      BSON_APPEND_INT64(&entry, "size", ns.size);
    }
    written = WriteDocument(&entry);
    bson_destroy(&entry);
    QUARRY_RETURN_IF_ERROR(written);
    crc_[Key(ns.db, ns.collection)] = 0;
  }
  return WriteTerminator();
}

Status ArchiveWriter::WriteSegment(const std::string& db, const std::string& collection,
                                   const std::string& documents) {
  if (documents.empty()) return Status::OK();
  std::lock_guard lock(mutex_);
  std::uint64_t& crc = crc_[Key(db, collection)];
  crc = Crc64Ecma(crc, documents.data(), documents.size());
  bson_t header = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&header, "db", db.c_str());
  BSON_APPEND_UTF8(&header, "collection", collection.c_str());
  BSON_APPEND_BOOL(&header, "EOF", false);
  BSON_APPEND_INT64(&header, "CRC", 0);
  Status written = WriteDocument(&header);
  bson_destroy(&header);
  QUARRY_RETURN_IF_ERROR(written);
  QUARRY_RETURN_IF_ERROR(sink_->Write(documents.data(), documents.size()));
  return WriteTerminator();
}

Status ArchiveWriter::EndNamespace(const std::string& db, const std::string& collection) {
  std::lock_guard lock(mutex_);
  bson_t header = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&header, "db", db.c_str());
  BSON_APPEND_UTF8(&header, "collection", collection.c_str());
  BSON_APPEND_BOOL(&header, "EOF", true);
  BSON_APPEND_INT64(&header, "CRC", static_cast<std::int64_t>(crc_[Key(db, collection)]));
  Status written = WriteDocument(&header);
  bson_destroy(&header);
  QUARRY_RETURN_IF_ERROR(written);
  return WriteTerminator();
}

StatusWith<ArchiveReader::Piece> ArchiveReader::ReadPiece(const char* what) {
  char length_bytes[4];
  auto read = source_->ReadExactly(length_bytes, 4);
  if (!read.ok()) return Damaged(std::string("it ends inside ") + what);
  if (!read.value()) return Piece::kEndOfInput;
  const std::uint32_t length = LittleEndian32(length_bytes);
  if (length == kTerminator) return Piece::kTerminator;
  if (length < 5 || length > kMaxDocumentBytes) {
    return Damaged(std::string("a ") + what + " has an impossible length " +
                   std::to_string(length));
  }
  buffer_.resize(length);
  std::memcpy(buffer_.data(), length_bytes, 4);
  auto rest = source_->ReadExactly(buffer_.data() + 4, length - 4);
  if (!rest.ok() || !rest.value()) return Damaged(std::string("it ends inside ") + what);
  bson_destroy(&document_);
  if (!bson_init_static(&document_, reinterpret_cast<const std::uint8_t*>(buffer_.data()),
                        length) ||
      !bson_validate(&document_, BSON_VALIDATE_NONE, nullptr)) {
    bson_init(&document_);
    return Damaged(std::string("a ") + what + " is not valid BSON");
  }
  return Piece::kDocument;
}

Status ArchiveReader::ReadPrelude(ArchiveHeader* header,
                                  std::vector<NamespaceMetadata>* namespaces) {
  char magic[4];
  auto read = source_->ReadExactly(magic, 4);
  if (!read.ok() || !read.value() || LittleEndian32(magic) != kArchiveMagic) {
    return Damaged("it does not start with the archive magic number");
  }
  auto found = ReadPiece("the header");
  if (!found.ok()) return found.status();
  if (found.value() != Piece::kDocument) return Damaged("it has no header");
  bson_iter_t iter;
  if (bson_iter_init_find(&iter, &document_, "concurrent_collections") &&
      BSON_ITER_HOLDS_INT(&iter)) {
    header->concurrent_collections = static_cast<int>(bson_iter_as_int64(&iter));
  }
  header->version = Utf8Field(document_, "version");
  header->server_version = Utf8Field(document_, "server_version");
  header->tool_version = Utf8Field(document_, "tool_version");
  if (header->version != "0.1")
    return Damaged("archive version \"" + header->version + "\" is not 0.1");
  while (true) {
    auto next = ReadPiece("the collection metadata");
    if (!next.ok()) return next.status();
    if (next.value() == Piece::kEndOfInput)
      return Damaged("it ends inside the collection metadata");
    if (next.value() == Piece::kTerminator) break;
    if (!HasUtf8Field(document_, "db") || !HasUtf8Field(document_, "collection") ||
        !HasUtf8Field(document_, "metadata")) {
      return Damaged("a collection metadata document lacks db, collection or metadata");
    }
    NamespaceMetadata ns;
    ns.db = Utf8Field(document_, "db");
    ns.collection = Utf8Field(document_, "collection");
    ns.metadata = Utf8Field(document_, "metadata");
    if (bson_iter_init_find(&iter, &document_, "size") && BSON_ITER_HOLDS_INT(&iter))
      ns.size = bson_iter_as_int64(&iter);
    ended_[Key(ns.db, ns.collection)] = false;
    namespaces->push_back(std::move(ns));
  }
  return Status::OK();
}

StatusWith<bool> ArchiveReader::Next(Event* event) {
  while (true) {
    if (in_segment_) {
      auto found = ReadPiece("a segment's document");
      if (!found.ok()) return found.status();
      if (found.value() == Piece::kEndOfInput) {
        return Damaged("it ends inside a segment of " + Key(segment_db_, segment_collection_));
      }
      if (found.value() == Piece::kTerminator) {
        in_segment_ = false;
        continue;
      }
      std::uint64_t& crc = crc_[Key(segment_db_, segment_collection_)];
      crc = Crc64Ecma(crc, bson_get_data(&document_), document_.len);
      event->kind = Event::kDocument;
      event->db = segment_db_;
      event->collection = segment_collection_;
      event->document = &document_;
      return true;
    }
    auto found = ReadPiece("a namespace header");
    if (!found.ok()) return found.status();
    if (found.value() == Piece::kEndOfInput) {
      for (const auto& [name, ended] : ended_) {
        if (!ended) return Damaged("it ends before the end of " + name);
      }
      return false;
    }
    if (found.value() == Piece::kTerminator)
      return Damaged("a terminator stands where a namespace header should");
    if (!HasUtf8Field(document_, "db") || !HasUtf8Field(document_, "collection")) {
      return Damaged("a namespace header lacks db or collection");
    }
    const std::string db = Utf8Field(document_, "db");
    const std::string collection = Utf8Field(document_, "collection");
    bson_iter_t iter;
    const bool eof = bson_iter_init_find(&iter, &document_, "EOF") && BSON_ITER_HOLDS_BOOL(&iter) &&
                     bson_iter_bool(&iter);
    if (!eof) {
      in_segment_ = true;
      segment_db_ = db;
      segment_collection_ = collection;
      continue;
    }
    std::int64_t expected = 0;
    if (bson_iter_init_find(&iter, &document_, "CRC") && BSON_ITER_HOLDS_INT(&iter))
      expected = bson_iter_as_int64(&iter);
    const std::string key = Key(db, collection);
    if (static_cast<std::uint64_t>(expected) != crc_[key]) {
      return Damaged("the checksum of " + key + " does not match its documents");
    }
    ended_[key] = true;
    auto terminator = ReadPiece("a namespace end");
    if (!terminator.ok()) return terminator.status();
    if (terminator.value() != Piece::kTerminator)
      return Damaged("a namespace end lacks its terminator");
    event->kind = Event::kNamespaceEnd;
    event->db = db;
    event->collection = collection;
    event->document = nullptr;
    return true;
  }
}

}  // namespace quarry::tools::dumping
