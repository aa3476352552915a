#include "query/spill/spill_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

namespace quarry::query {
namespace {

constexpr std::size_t kWriteBufferBytes = 1 << 20;
constexpr std::size_t kReadChunkBytes = 64 << 10;
// A spilled document may be larger than a stored one (a $group's partial $push), never larger
// than an int32 length says.
constexpr std::uint32_t kMaxSpilledDocumentBytes = 0x7fffffff;

Status IoError(const std::string& what, const std::string& path, int err) {
  return Status(ErrorCode::kOperationFailed,
                "spilling to disk: cannot " + what + " " + path + ": " + std::strerror(err));
}

Status MakeDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::OK();
  return IoError("create directory", dir, errno);
}

// A name no other run of this process has; O_EXCL guards against the rest.
std::string NextFileName() {
  static std::atomic<std::uint64_t> counter{0};
  static const std::uint32_t nonce = std::random_device{}();
  return "run-" + std::to_string(::getpid()) + "-" + std::to_string(nonce) + "-" +
         std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
}

void CloseQuietly(int fd) {
  if (fd >= 0) ::close(fd);
}

}  // namespace

Status PrepareSpillDirectory(const std::string& dir) {
  QUARRY_RETURN_IF_ERROR(MakeDirectory(dir));
  if (::chmod(dir.c_str(), 0700) != 0) return IoError("set the mode of", dir, errno);
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return IoError("list", dir, errno);
  Status status = Status::OK();
  while (dirent* entry = ::readdir(listing)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT && status.ok()) {
      status = IoError("remove", path, errno);
    }
  }
  ::closedir(listing);
  return status;
}

SpillRun::SpillRun(SpillRun&& other) noexcept
    : path_(std::move(other.path_)), bytes_(other.bytes_), documents_(other.documents_) {
  other.path_.clear();
}

SpillRun& SpillRun::operator=(SpillRun&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) ::unlink(path_.c_str());
    path_ = std::move(other.path_);
    other.path_.clear();
    bytes_ = other.bytes_;
    documents_ = other.documents_;
  }
  return *this;
}

SpillRun::~SpillRun() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

StatusWith<SpillWriter> SpillWriter::Create(const std::string& dir) {
  QUARRY_RETURN_IF_ERROR(MakeDirectory(dir));
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string path = dir + "/" + NextFileName();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return SpillWriter(std::move(path), fd);
    if (errno != EEXIST) return IoError("create", path, errno);
  }
  return Status(ErrorCode::kOperationFailed, "spilling to disk: no free file name in " + dir);
}

SpillWriter::SpillWriter(SpillWriter&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      buffer_(std::move(other.buffer_)),
      bytes_(other.bytes_),
      documents_(other.documents_) {
  other.path_.clear();
  other.fd_ = -1;
}

SpillWriter::~SpillWriter() {
  CloseQuietly(fd_);
  if (!path_.empty()) ::unlink(path_.c_str());
}

Status SpillWriter::Append(bson::DocumentView doc) {
  const std::string_view bytes = doc.bytes();
  buffer_.append(bytes.data(), bytes.size());
  bytes_ += bytes.size();
  ++documents_;
  if (buffer_.size() >= kWriteBufferBytes) return Flush();
  return Status::OK();
}

Status SpillWriter::Flush() {
  std::size_t written = 0;
  while (written < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("write", path_, errno);
    }
    written += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return Status::OK();
}

StatusWith<SpillRun> SpillWriter::Finish() && {
  QUARRY_RETURN_IF_ERROR(Flush());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return IoError("close", path_, errno);
  SpillRun run;
  run.path_ = std::move(path_);
  path_.clear();
  run.bytes_ = bytes_;
  run.documents_ = documents_;
  return run;
}

StatusWith<SpillReader> SpillReader::Open(const SpillRun& run) {
  const int fd = ::open(run.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("open", run.path(), errno);
  return SpillReader(fd);
}

SpillReader::SpillReader(SpillReader&& other) noexcept
    : fd_(other.fd_), buffer_(std::move(other.buffer_)), pos_(other.pos_) {
  other.fd_ = -1;
}

SpillReader::~SpillReader() { CloseQuietly(fd_); }

StatusWith<bool> SpillReader::Fill(std::size_t n) {
  if (buffer_.size() - pos_ >= n) return true;
  buffer_.erase(0, pos_);
  pos_ = 0;
  while (buffer_.size() < n) {
    const std::size_t want = std::max(n - buffer_.size(), kReadChunkBytes);
    const std::size_t old_size = buffer_.size();
    buffer_.resize(old_size + want);
    const ssize_t got = ::read(fd_, buffer_.data() + old_size, want);
    if (got < 0) {
      buffer_.resize(old_size);
      if (errno == EINTR) continue;
      return IoError("read", "a spill file", errno);
    }
    buffer_.resize(old_size + static_cast<std::size_t>(got));
    if (got == 0) return false;
  }
  return true;
}

StatusWith<bool> SpillReader::Next(bson::Document* out) {
  QUARRY_ASSIGN_OR_RETURN(bool has_length, Fill(4));
  if (!has_length) {
    if (buffer_.size() == pos_) return false;
    return Status(ErrorCode::kOperationFailed, "spilling to disk: a spill file was cut short");
  }
  std::uint32_t length = 0;
  std::memcpy(&length, buffer_.data() + pos_, 4);  // BSON lengths are little-endian, as we are
  if (length < 5 || length > kMaxSpilledDocumentBytes) {
    return Status(ErrorCode::kOperationFailed, "spilling to disk: a spill file is corrupt");
  }
  QUARRY_ASSIGN_OR_RETURN(bool whole, Fill(length));
  if (!whole) {
    return Status(ErrorCode::kOperationFailed, "spilling to disk: a spill file was cut short");
  }
  *out = bson::Document(buffer_.substr(pos_, length));
  pos_ += length;
  return true;
}

}  // namespace quarry::query
