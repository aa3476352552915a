// Files (or stdin/stdout) read and written whole-stream, optionally gzip-compressed (zlib's
// gzip layer), with every error reported: what a dump writes and a restore reads.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"

namespace quarry::tools::dumping {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(const void* data, std::size_t size) = 0;
  // Flushes and closes; a write error that only shows at close (a full disk) fails here.
  virtual Status Close() = 0;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes; 0 at the end. A damaged gzip stream is an error.
  virtual StatusWith<std::size_t> Read(void* data, std::size_t size) = 0;
  // Reads exactly `size` bytes; false (with nothing promised about `data`) at a clean end
  // before the first byte, an error for an end inside them.
  StatusWith<bool> ReadExactly(void* data, std::size_t size);
};

// `path` "-" is stdout. Parent folders are created.
StatusWith<std::unique_ptr<ByteSink>> OpenSink(const std::string& path, bool gzip);
// `path` "-" is stdin. Gzip input is read as gzip whatever `gzip` says, plain input as plain.
StatusWith<std::unique_ptr<ByteSource>> OpenSource(const std::string& path);

}  // namespace quarry::tools::dumping
