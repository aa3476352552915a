// The input of the import benchmark: a file of listing-like JSON documents of about 1 KB, one
// per line, from a fixed seed, so every run and every machine imports the same bytes.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace quarry::bench::import {

struct NdjsonFile {
  std::uint64_t documents = 0;
  std::uint64_t bytes = 0;
};

// Writes documents to `path` until it holds at least `bytes` (replacing the file).
StatusWith<NdjsonFile> WriteNdjsonFile(const std::string& path, std::uint64_t bytes,
                                       std::uint64_t seed);

// One document's line, without its newline (exposed for tests).
std::string NdjsonDocument(std::uint64_t id, std::uint64_t seed);

}  // namespace quarry::bench::import
