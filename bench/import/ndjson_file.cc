#include "bench/import/ndjson_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace quarry::bench::import {
namespace {

constexpr const char* kWords[] = {"bright",  "quiet", "harbour", "loft", "garden",
                                  "station", "river", "modern",  "cosy", "view",
                                  "terrace", "old",   "town",    "walk", "market"};
constexpr const char* kCities[] = {"Lisbon", "Porto",   "Paris", "Lyon",
                                   "Berlin", "Leipzig", "Rome",  "Turin"};

std::string Words(std::mt19937_64& rng, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    if (i > 0) text.push_back(' ');
    text += kWords[rng() % std::size(kWords)];
  }
  return text;
}

}  // namespace

std::string NdjsonDocument(std::uint64_t id, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + id);
  char number[64];
  std::string doc = "{\"_id\": " + std::to_string(id);
  doc += ", \"name\": \"" + Words(rng, 4) + "\"";
  std::snprintf(number, sizeof number, "%.2f", 20.0 + static_cast<double>(rng() % 100000) / 100.0);
  doc += ", \"price\": ";
  doc += number;
  doc += ", \"bedrooms\": " + std::to_string(rng() % 6);
  doc += ", \"available\": ";
  doc += (rng() % 2) != 0 ? "true" : "false";
  doc += ", \"host\": {\"host_id\": " + std::to_string(rng() % 1000000) + ", \"name\": \"" +
         Words(rng, 2) + "\", \"since\": {\"$date\": \"20" + std::to_string(10 + rng() % 14) +
         "-0" + std::to_string(1 + rng() % 9) + "-1" + std::to_string(rng() % 10) +
         "T00:00:00Z\"}}";
  doc += ", \"address\": {\"city\": \"";
  doc += kCities[rng() % std::size(kCities)];
  std::snprintf(number, sizeof number, "[%.5f, %.5f]",
                -9.0 + static_cast<double>(rng() % 200000) / 10000.0,
                38.0 + static_cast<double>(rng() % 150000) / 10000.0);
  doc += "\", \"location\": {\"type\": \"Point\", \"coordinates\": ";
  doc += number;
  doc += "}}, \"amenities\": [";
  const int amenities = 3 + static_cast<int>(rng() % 8);
  for (int i = 0; i < amenities; ++i) doc += (i > 0 ? ", \"" : "\"") + Words(rng, 1) + "\"";
  doc += "], \"description\": \"" + Words(rng, 90) + "\"}";
  return doc;
}

StatusWith<NdjsonFile> WriteNdjsonFile(const std::string& path, std::uint64_t bytes,
                                       std::uint64_t seed) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr)
    return Status(ErrorCode::kOperationFailed,
                  "cannot write " + path + ": " + std::strerror(errno));
  NdjsonFile file;
  std::string line;
  while (file.bytes < bytes) {
    line = NdjsonDocument(file.documents, seed);
    line.push_back('\n');
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size()) {
      std::fclose(out);
      return Status(ErrorCode::kOperationFailed,
                    "cannot write " + path + ": " + std::strerror(errno));
    }
    file.bytes += line.size();
    ++file.documents;
  }
  if (std::fclose(out) != 0)
    return Status(ErrorCode::kOperationFailed,
                  "cannot write " + path + ": " + std::strerror(errno));
  return file;
}

}  // namespace quarry::bench::import
