// storage_insert_bench: prints how fast documents go into the storage layer.
//   storage_insert_bench [--docs N] [--batch N] [--size BYTES] [--journal] [--dbpath DIR]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/allocator.h"
#include "bench/storage_insert/storage_insert_bench.h"

int main(int argc, char** argv) {
  // The storage layer runs here with the server's allocator settings.
  quarry::TuneAllocator(argv);
  quarry::bench::StorageInsertBenchOptions options;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (std::strcmp(argv[i], "--docs") == 0) {
      options.documents = std::strtoull(next(), nullptr, 10);
    } else if (std::strcmp(argv[i], "--batch") == 0) {
      options.batch_size = std::strtoull(next(), nullptr, 10);
    } else if (std::strcmp(argv[i], "--size") == 0) {
      options.document_bytes = std::strtoull(next(), nullptr, 10);
    } else if (std::strcmp(argv[i], "--dbpath") == 0) {
      options.dbpath = next();
    } else if (std::strcmp(argv[i], "--journal") == 0) {
      options.durability = quarry::storage::Durability::kJournal;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--docs N] [--batch N] [--size BYTES] [--journal] [--dbpath DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  if (options.batch_size == 0) options.batch_size = 1;
  auto result = quarry::bench::RunStorageInsertBench(options);
  if (!result.ok()) {
    std::fprintf(stderr, "storage insert bench failed: %s\n", result.status().ToString().c_str());
    return 1;
  }
  const auto& r = result.value();
  std::printf(
      "| benchmark | documents | doc bytes | batch | seconds | commit seconds | docs/s | MB/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::printf("| storage insert (%s) | %zu | %zu | %zu | %.3f | %.3f | %.0f | %.1f |\n",
              options.durability == quarry::storage::Durability::kJournal ? "j:true" : "w:1",
              r.documents, r.documents ? r.bson_bytes / r.documents : 0, options.batch_size,
              r.seconds, r.commit_seconds, r.documents_per_second,
              r.seconds > 0 ? static_cast<double>(r.bson_bytes) / r.seconds / 1e6 : 0.0);
  return 0;
}
