// Snapshot files: the payload behind a magic number and a CRC-32, written to a temporary file,
// synced and renamed into place, so a reader finds the old file, the new one, or none, and a
// torn or corrupted file is recognised as such.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::vector {

Status WriteSnapshotFile(const std::string& path, std::string_view payload);
// The payload; NoSuchKey when there is no file, InternalError when it is torn or corrupt.
StatusWith<std::string> ReadSnapshotFile(const std::string& path);

}  // namespace quarry::vector
