// OutputWriter: where an export's text goes (a file or standard output), buffered, with every
// failed write reported, so a full disk or a closed pipe ends the export with an error rather
// than a silently short file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::tools::exporting {

class OutputWriter {
 public:
  // Creates (or truncates) the file at `path`, creating missing parent folders as mongoexport
  // does; "" or "-" is standard output. Fails with kOperationFailed and the system's reason.
  static StatusWith<std::unique_ptr<OutputWriter>> Open(const std::string& path);

  // Writes to `fd`, named `name` in error messages; closes it at Close() only if `owns_fd`.
  OutputWriter(int fd, std::string name, bool owns_fd, std::size_t buffer_bytes = 1 << 18);
  ~OutputWriter();
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  // Buffers `bytes`, writing the buffer out once it is full. Once a write has failed, every
  // later call fails the same way.
  Status Write(std::string_view bytes);
  // Writes out what is buffered and closes an owned descriptor. The export has succeeded only
  // if this succeeds.
  Status Close();

 private:
  Status Flush();

  int fd_;
  std::string name_;
  bool owns_fd_;
  std::size_t buffer_bytes_;
  std::string buffer_;
  Status failed_;
};

}  // namespace quarry::tools::exporting
