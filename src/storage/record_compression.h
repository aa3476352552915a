// Large documents are stored as zstd frames: in their oplog entry (`oz`) and as their record in
// the docs family. The write-ahead log, memtables, flushes and block cache then carry a quarter
// of the bytes, and a client that asked for zstd gets the stored frame as its reply.
//
// A stored record is told apart by its first four bytes: a zstd frame starts with the magic
// number 0xFD2FB528 (little-endian), which as a BSON length would be over 4 GB.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::storage {

// Documents of this many bytes or more are compressed. Smaller ones gain more from the block
// compression of the family, which sees many documents together.
inline constexpr std::size_t kCompressRecordsFrom = 64 * 1024;

bool IsCompressedRecord(std::string_view stored);

// The zstd frame (fastest level, content size in its header) `document` is stored as, or empty
// when it stays BSON: below kCompressRecordsFrom, or when the frame would be more than 7/8 of
// it (GridFS chunks of media, say; readers then skip inflating it). A document whose first
// bytes and middle bytes both compress that badly is not tried whole.
std::string CompressRecord(bson::DocumentView document);

// The document a stored record holds: a copy of plain BSON, or the inflated frame.
StatusWith<std::string> InflateRecord(std::string_view stored);

// The size of the BSON a stored record holds, read from the frame header when compressed
// (0 for a corrupt frame).
std::size_t RecordDocumentSize(std::string_view stored);

// Whether a stored record holds exactly `document`: a frame is inflated piece by piece and
// compared as it goes, stopping at the first difference.
bool RecordHolds(std::string_view stored, bson::DocumentView document);

}  // namespace quarry::storage
