#include "tools/dump/byte_stream.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

namespace quarry::tools::dumping {
namespace {

constexpr unsigned kBufferBytes = 1 << 20;

Status IoError(const std::string& what, const std::string& path, const std::string& why) {
  return Status(ErrorCode::kOperationFailed, "cannot " + what + " " + path + ": " + why);
}

std::string GzipReason(gzFile file) {
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return message != nullptr && *message != '\0' ? message : "unknown error";
}

class GzipSink : public ByteSink {
 public:
  GzipSink(gzFile file, std::string path) : file_(file), path_(std::move(path)) {}
  ~GzipSink() override {
    if (file_ != nullptr) gzclose(file_);
  }
  Status Write(const void* data, std::size_t size) override {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const auto chunk =
          static_cast<unsigned>(std::min<std::size_t>(size, std::numeric_limits<int>::max()));
      if (gzwrite(file_, bytes, chunk) != static_cast<int>(chunk)) {
        return IoError("write", path_, GzipReason(file_));
      }
      bytes += chunk;
      size -= chunk;
    }
    return Status::OK();
  }
  Status Close() override {
    const int closed = gzclose(file_);
    file_ = nullptr;
    if (closed != Z_OK) {
      return IoError("write", path_,
                     closed == Z_ERRNO ? std::strerror(errno) : "the stream did not close");
    }
    return Status::OK();
  }

 private:
  gzFile file_;
  const std::string path_;
};

class GzipSource : public ByteSource {
 public:
  GzipSource(gzFile file, std::string path) : file_(file), path_(std::move(path)) {}
  ~GzipSource() override { gzclose(file_); }
  StatusWith<std::size_t> Read(void* data, std::size_t size) override {
    const auto chunk =
        static_cast<unsigned>(std::min<std::size_t>(size, std::numeric_limits<int>::max()));
    const int n = gzread(file_, data, chunk);
    if (n < 0) return IoError("read", path_, GzipReason(file_));
    return static_cast<std::size_t>(n);
  }

 private:
  gzFile file_;
  const std::string path_;
};

}  // namespace

StatusWith<bool> ByteSource::ReadExactly(void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    auto n = Read(bytes + done, size - done);
    if (!n.ok()) return n.status();
    if (n.value() == 0) {
      if (done == 0) return false;
      return Status(ErrorCode::kFailedToParse, "the input ends in the middle of a record");
    }
    done += n.value();
  }
  return true;
}

StatusWith<std::unique_ptr<ByteSink>> OpenSink(const std::string& path, bool gzip) {
  // "T" writes through zlib's buffering without compressing.
  const char* mode = gzip ? "wb6" : "wbT";
  gzFile file = nullptr;
  if (path == "-") {
    file = gzdopen(dup(fileno(stdout)), mode);
  } else {
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) return IoError("create", parent.string(), ec.message());
    file = gzopen(path.c_str(), mode);
  }
  if (file == nullptr)
    return IoError("open", path == "-" ? "standard output" : path, std::strerror(errno));
  gzbuffer(file, kBufferBytes);
  return std::unique_ptr<ByteSink>(
      std::make_unique<GzipSink>(file, path == "-" ? "standard output" : path));
}

StatusWith<std::unique_ptr<ByteSource>> OpenSource(const std::string& path) {
  gzFile file = path == "-" ? gzdopen(dup(fileno(stdin)), "rb") : gzopen(path.c_str(), "rb");
  if (file == nullptr)
    return IoError("open", path == "-" ? "standard input" : path, std::strerror(errno));
  gzbuffer(file, kBufferBytes);
  return std::unique_ptr<ByteSource>(
      std::make_unique<GzipSource>(file, path == "-" ? "standard input" : path));
}

}  // namespace quarry::tools::dumping
