// The in-process baselines of the import benchmark: the same file parsed by simdjson alone
// (iterate_many, every value visited), and framed and converted to BSON by `quarry import`'s own
// reader without a server.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace quarry::bench::import {

struct PartResult {
  std::uint64_t documents = 0;
  double seconds = 0;
  double cpu_seconds = 0;
};

// simdjson's document stream over the file, read in blocks cut at line ends.
StatusWith<PartResult> ParseWithSimdjson(const std::string& path);

// tools/import's JsonDocumentReader and JsonToBson over the file, each document built and
// dropped.
StatusWith<PartResult> ConvertToBson(const std::string& path);

}  // namespace quarry::bench::import
