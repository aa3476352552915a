// OutputWriter over write(2), so each error is the system's own errno rather than a stdio
// error flag found later.
#include "tools/export/output_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace quarry::tools::exporting {
namespace {

Status SystemError(const std::string& action, const std::string& name, int error) {
  return Status(ErrorCode::kOperationFailed,
                "cannot " + action + " " + name + ": " + std::strerror(error));
}

}  // namespace

StatusWith<std::unique_ptr<OutputWriter>> OutputWriter::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    return std::make_unique<OutputWriter>(STDOUT_FILENO, "standard output", false);
  }
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) return SystemError("create the folder of", path, error.value());
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return SystemError("open", path, errno);
  return std::make_unique<OutputWriter>(fd, path, true);
}

OutputWriter::OutputWriter(int fd, std::string name, bool owns_fd, std::size_t buffer_bytes)
    : fd_(fd), name_(std::move(name)), owns_fd_(owns_fd), buffer_bytes_(buffer_bytes) {
  buffer_.reserve(buffer_bytes_);
}

OutputWriter::~OutputWriter() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

Status OutputWriter::Write(std::string_view bytes) {
  if (!failed_.ok()) return failed_;
  buffer_.append(bytes);
  if (buffer_.size() >= buffer_bytes_) return Flush();
  return Status::OK();
}

Status OutputWriter::Flush() {
  if (!failed_.ok()) return failed_;
  std::size_t written = 0;
  while (written < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      failed_ = SystemError("write to", name_, errno);
      return failed_;
    }
    written += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return Status::OK();
}

Status OutputWriter::Close() {
  Status flushed = Flush();
  if (owns_fd_ && fd_ >= 0) {
    int closed = ::close(fd_);
    int error = errno;
    fd_ = -1;
    // NFS and some full disks report a lost write only at close.
    if (closed != 0 && flushed.ok()) return SystemError("write to", name_, error);
  }
  return flushed;
}

}  // namespace quarry::tools::exporting
