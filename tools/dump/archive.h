// The mongodump archive format, as mongodump writes and mongorestore reads it: a magic number, a
// header document, one metadata document per namespace, a terminator, then segments of
// documents that may interleave namespaces, each namespace closed by an EOF header that carries
// the CRC-64 of its documents. Writer and reader hold one document at a time.
#pragma once

#include <bson/bson.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/dump/byte_stream.h"

namespace quarry::tools::dumping {

inline constexpr std::uint32_t kArchiveMagic = 0x8199e26d;

struct ArchiveHeader {
  int concurrent_collections = 1;
  std::string version = "0.1";
  std::string server_version;
  std::string tool_version;
};

// One namespace's entry in the prelude: its metadata is the canonical Extended JSON that a
// dump directory keeps in <collection>.metadata.json.
struct NamespaceMetadata {
  std::string db;
  std::string collection;
  std::string metadata;
  std::int64_t size = 0;  // uncompressed bytes of its documents
};

class ArchiveWriter {
 public:
  explicit ArchiveWriter(ByteSink* sink) : sink_(sink) {}

  Status WritePrelude(const ArchiveHeader& header,
                      const std::vector<NamespaceMetadata>& namespaces);
  // Appends a segment of `documents` (BSON documents back to back, at least one) of a namespace.
  // Safe to call from several threads: segments of different namespaces interleave.
  Status WriteSegment(const std::string& db, const std::string& collection,
                      const std::string& documents);
  // Closes a namespace with the checksum of all its segments (also for one with no documents).
  Status EndNamespace(const std::string& db, const std::string& collection);

 private:
  Status WriteDocument(const bson_t* document);  // REQUIRES: mutex_ held
  Status WriteTerminator();                      // REQUIRES: mutex_ held

  ByteSink* sink_;
  std::mutex mutex_;
  std::map<std::string, std::uint64_t> crc_;  // "db.collection" -> CRC of its documents so far
};

class ArchiveReader {
 public:
  explicit ArchiveReader(ByteSource* source) : source_(source) {}
  ~ArchiveReader() { bson_destroy(&document_); }
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // Reads the magic number, header and metadata documents. Errors (kFailedToParse) for input that
  // is not an archive or is damaged.
  Status ReadPrelude(ArchiveHeader* header, std::vector<NamespaceMetadata>* namespaces);

  struct Event {
    enum Kind { kDocument, kNamespaceEnd } kind = kDocument;
    std::string db;
    std::string collection;
    const bson_t* document = nullptr;  // kDocument: valid until the next call
  };
  // The next document or namespace end; false after the last. A checksum that does not match
  // its namespace's documents, a namespace without its end, or damaged framing is an error.
  StatusWith<bool> Next(Event* event);

 private:
  enum class Piece { kDocument, kTerminator, kEndOfInput };
  // Reads a document (into document_), a terminator, or the clean end of the input. `what`
  // names the expected piece in errors.
  StatusWith<Piece> ReadPiece(const char* what);

  ByteSource* source_;
  std::string buffer_;
  bson_t document_ = BSON_INITIALIZER;
  bool in_segment_ = false;
  std::string segment_db_;
  std::string segment_collection_;
  std::map<std::string, std::uint64_t> crc_;
  std::map<std::string, bool> ended_;  // every namespace of the prelude, true once its EOF is read
};

}  // namespace quarry::tools::dumping
