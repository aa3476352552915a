// Temporary files of the blocking stages that outgrow their memory limit ($sort, $group, find's
// SORT): runs of BSON documents, written once, read back once in order, and removed by their
// owner, so a finished, failed or killed query leaves nothing behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::query {

// Creates `dir` (mode 0700) when it is missing and removes every file in it. At start-up no
// query runs, so whatever is there was left by a server that stopped in the middle of one.
Status PrepareSpillDirectory(const std::string& dir);

// One finished file of spilled documents. Removes its file when destroyed. Move-only.
class SpillRun {
 public:
  SpillRun() = default;
  SpillRun(SpillRun&& other) noexcept;
  SpillRun& operator=(SpillRun&& other) noexcept;
  SpillRun(const SpillRun&) = delete;
  SpillRun& operator=(const SpillRun&) = delete;
  ~SpillRun();

  const std::string& path() const { return path_; }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t documents() const { return documents_; }

 private:
  friend class SpillWriter;
  std::string path_;  // empty: no file
  std::uint64_t bytes_ = 0;
  std::uint64_t documents_ = 0;
};

// Appends documents to a new file of a spill directory, through a buffer.
class SpillWriter {
 public:
  // Creates a file no one else has (mode 0600) in `dir`, creating `dir` (0700) when missing.
  // Fails with OperationFailed when the file cannot be created.
  static StatusWith<SpillWriter> Create(const std::string& dir);

  SpillWriter(SpillWriter&& other) noexcept;
  SpillWriter& operator=(SpillWriter&& other) = delete;
  SpillWriter(const SpillWriter&) = delete;
  ~SpillWriter();  // an unfinished file is removed

  // Fails with OperationFailed when the disk refuses the bytes (full, I/O error).
  Status Append(bson::DocumentView doc);
  // Writes what the buffer holds and closes the file.
  StatusWith<SpillRun> Finish() &&;

 private:
  SpillWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  Status Flush();

  std::string path_;
  int fd_ = -1;
  std::string buffer_;
  std::uint64_t bytes_ = 0;
  std::uint64_t documents_ = 0;
};

// Reads a run's documents back in the order they were written, through a buffer.
class SpillReader {
 public:
  // REQUIRES: `run` outlives the reader.
  static StatusWith<SpillReader> Open(const SpillRun& run);

  SpillReader(SpillReader&& other) noexcept;
  SpillReader& operator=(SpillReader&& other) = delete;
  SpillReader(const SpillReader&) = delete;
  ~SpillReader();

  // Stores the next document in *out and returns true, or returns false at the end. Fails with
  // OperationFailed when the file cannot be read or was cut short.
  StatusWith<bool> Next(bson::Document* out);

 private:
  explicit SpillReader(int fd) : fd_(fd) {}
  // Makes at least `n` bytes available at buffer_[pos_]; false when the file ends first.
  StatusWith<bool> Fill(std::size_t n);

  int fd_ = -1;
  std::string buffer_;
  std::size_t pos_ = 0;
};

}  // namespace quarry::query
