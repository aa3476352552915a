// The mapping behind VectorStore: an unnamed file grown with fallocate (so a full disk is an
// error here, not a SIGBUS on a later write to the mapping) and remapped with mremap.
#include "vector/vector_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/log.h"

namespace quarry::vector {
namespace {

constexpr std::size_t kInitialCapacity = 256;  // vectors

int OpenUnnamedFile(const std::string& dir) {
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // File systems without O_TMPFILE: a named file, unlinked at once.
  std::string name = dir + "/vectors.XXXXXX";
  fd = ::mkstemp(name.data());
  if (fd < 0) return -1;
  ::unlink(name.c_str());
  return fd;
}

void* MapOrNull(std::size_t bytes, int fd) {
  void* p =
      fd >= 0 ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
              : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

VectorStore::VectorStore(std::size_t dimensions, const std::string& dir) : dimensions_(dimensions) {
  if (!dir.empty()) fd_ = OpenUnnamedFile(dir);
  if (!Grow(kInitialCapacity)) MoveToAnonymousMemory(kInitialCapacity);
}

VectorStore::~VectorStore() {
  if (data_ != nullptr) ::munmap(data_, mapped_bytes_);
  if (fd_ >= 0) ::close(fd_);
}

void VectorStore::Append(std::span<const float> vector) {
  if (size_ == capacity_ && !Grow(capacity_ * 2)) MoveToAnonymousMemory(capacity_ * 2);
  std::memcpy(data_ + size_ * dimensions_, vector.data(), dimensions_ * sizeof(float));
  ++size_;
}

bool VectorStore::Grow(std::size_t capacity) {
  const std::size_t bytes = std::max<std::size_t>(capacity * dimensions_ * sizeof(float), 1);
  if (fd_ >= 0 && ::posix_fallocate(fd_, 0, static_cast<off_t>(bytes)) != 0) return false;
  void* grown = data_ == nullptr ? MapOrNull(bytes, fd_)
                                 : ::mremap(data_, mapped_bytes_, bytes, MREMAP_MAYMOVE);
  if (grown == nullptr || grown == MAP_FAILED) return false;
  data_ = static_cast<float*>(grown);
  mapped_bytes_ = bytes;
  capacity_ = capacity;
  return true;
}

void VectorStore::MoveToAnonymousMemory(std::size_t capacity) {
  if (fd_ >= 0) {
    log::Write(log::Severity::kWarning, "QUERY", 7828404, "SearchIndexVectorFile",
               "Keeping a quantized index's full-precision vectors in memory: their file "
               "cannot grow",
               {{"bytes", static_cast<std::int64_t>(capacity * dimensions_ * sizeof(float))}});
  }
  const std::size_t bytes = std::max<std::size_t>(capacity * dimensions_ * sizeof(float), 1);
  void* fresh = MapOrNull(bytes, -1);
  if (fresh == nullptr) std::abort();  // out of memory, as a failed allocation anywhere else
  if (data_ != nullptr) {
    std::memcpy(fresh, data_, size_ * dimensions_ * sizeof(float));
    ::munmap(data_, mapped_bytes_);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  data_ = static_cast<float*>(fresh);
  mapped_bytes_ = bytes;
  capacity_ = capacity;
}

}  // namespace quarry::vector
