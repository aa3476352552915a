#include "bench/import/parse_parts.h"

#include <bson/bson.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/clients/process_cpu.h"
#include "tools/import/json_document_reader.h"
#include "tools/import/json_to_bson.h"

namespace quarry::bench::import {
namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kBlockBytes = 64 << 20;

// Visits every value below `value`, so the parse is complete rather than lazy.
simdjson::error_code Visit(od::value value, std::uint64_t* scalars) {
  od::json_type type;
  if (auto error = value.type().get(type)) return error;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (auto error = value.get_object().get(object)) return error;
      for (auto field : object) {
        od::value child;
        if (auto error = field.value().get(child)) return error;
        if (auto error = Visit(child, scalars)) return error;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array array;
      if (auto error = value.get_array().get(array)) return error;
      for (auto element : array) {
        od::value child;
        if (auto error = element.get(child)) return error;
        if (auto error = Visit(child, scalars)) return error;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::number: {
      double number;
      ++*scalars;
      return value.get_double().get(number);
    }
    case od::json_type::string: {
      std::string_view text;
      ++*scalars;
      return value.get_string().get(text);
    }
    default:
      ++*scalars;
      return simdjson::SUCCESS;
  }
}

}  // namespace

StatusWith<PartResult> ParseWithSimdjson(const std::string& path) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) return Status(ErrorCode::kOperationFailed, "cannot read " + path);
  const auto started = std::chrono::steady_clock::now();
  const double cpu_started = OwnCpuSeconds();
  std::vector<char> block(kBlockBytes + simdjson::SIMDJSON_PADDING);
  std::size_t kept = 0;
  od::parser parser;
  PartResult result;
  std::uint64_t scalars = 0;
  while (true) {
    const std::size_t n = std::fread(block.data() + kept, 1, kBlockBytes - kept, in);
    const std::size_t size = kept + n;
    if (size == 0) break;
    std::size_t end = size;
    if (n > 0) {
      while (end > 0 && block[end - 1] != '\n') --end;  // whole lines only
    }
    if (end > 0) {
      od::document_stream stream;
      if (auto error = parser.iterate_many(block.data(), end, 1 << 20).get(stream)) {
        std::fclose(in);
        return Status(ErrorCode::kFailedToParse, simdjson::error_message(error));
      }
      for (auto document : stream) {
        od::value root;
        if (auto error = document.get_value().get(root); error || Visit(root, &scalars)) {
          std::fclose(in);
          return Status(ErrorCode::kFailedToParse, "simdjson could not parse the file");
        }
        ++result.documents;
      }
    }
    kept = size - end;
    std::memmove(block.data(), block.data() + end, kept);
    if (n == 0) break;
  }
  std::fclose(in);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.cpu_seconds = OwnCpuSeconds() - cpu_started;
  return result;
}

StatusWith<PartResult> ConvertToBson(const std::string& path) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) return Status(ErrorCode::kOperationFailed, "cannot read " + path);
  const auto started = std::chrono::steady_clock::now();
  const double cpu_started = OwnCpuSeconds();
  tools::importing::JsonDocumentReader reader(in, tools::importing::JsonFraming::kDocuments,
                                              64 << 20);
  tools::importing::JsonToBson converter;
  PartResult result;
  while (true) {
    tools::importing::JsonDocumentText text;
    auto next = reader.Next(&text);
    if (!next.ok()) {
      std::fclose(in);
      return next.status();
    }
    if (!next.value()) break;
    bson_t doc = BSON_INITIALIZER;
    Status converted = converter.Convert(text.data, text.size, text.readable, &doc);
    bson_destroy(&doc);
    if (!converted.ok()) {
      std::fclose(in);
      return converted;
    }
    ++result.documents;
  }
  std::fclose(in);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.cpu_seconds = OwnCpuSeconds() - cpu_started;
  return result;
}

}  // namespace quarry::bench::import
