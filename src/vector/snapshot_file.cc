#include "vector/snapshot_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/endian.h"

namespace quarry::vector {
namespace {

constexpr std::string_view kMagic = "QVSNAP01";

std::uint32_t Crc(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed it in pieces.
  while (!bytes.empty()) {
    const std::size_t piece = std::min<std::size_t>(bytes.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(piece));
    bytes.remove_prefix(piece);
  }
  return static_cast<std::uint32_t>(crc);
}

Status SystemError(const std::string& what, const std::string& path) {
  return Status(ErrorCode::kInternalError, what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Status WriteSnapshotFile(const std::string& path, std::string_view payload) {
  std::string bytes(kMagic);
  AppendLittleEndian64(payload.size(), &bytes);
  bytes.append(payload);
  AppendLittleEndian32(Crc(bytes), &bytes);
  const std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return SystemError("cannot create", temporary);
  std::string_view rest = bytes;
  while (!rest.empty()) {
    ssize_t written = ::write(fd, rest.data(), rest.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      Status error = SystemError("cannot write", temporary);
      ::close(fd);
      ::unlink(temporary.c_str());
      return error;
    }
    rest.remove_prefix(static_cast<std::size_t>(written));
  }
  if (::fsync(fd) != 0) {
    Status error = SystemError("cannot sync", temporary);
    ::close(fd);
    ::unlink(temporary.c_str());
    return error;
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Status error = SystemError("cannot rename", temporary);
    ::unlink(temporary.c_str());
    return error;
  }
  return Status::OK();
}

StatusWith<std::string> ReadSnapshotFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(ErrorCode::kNoSuchKey, "no snapshot at " + path);
  std::ostringstream contents;
  contents << in.rdbuf();
  std::string bytes = std::move(contents).str();
  auto torn = [&](const char* why) {
    return Status(ErrorCode::kInternalError, "snapshot " + path + " is " + why);
  };
  if (bytes.size() < kMagic.size() + 12 ||
      std::string_view(bytes).substr(0, kMagic.size()) != kMagic) {
    return torn("not a snapshot or torn");
  }
  std::uint64_t size = 0;
  for (int i = 7; i >= 0; --i) {
    size = size << 8 | static_cast<std::uint8_t>(bytes[kMagic.size() + i]);
  }
  if (size != bytes.size() - kMagic.size() - 12) return torn("torn");
  const std::size_t body = bytes.size() - 4;
  if (Crc(std::string_view(bytes).substr(0, body)) != LoadLittleEndian32(bytes.data() + body)) {
    return torn("corrupt (checksum mismatch)");
  }
  return bytes.substr(kMagic.size() + 8, size);
}

}  // namespace quarry::vector
