// The storage insert benchmark: documents shaped like a typical application's (strings, numbers,
// a date, a small array), with the oplog entry the insert command builds for each.
#include "bench/storage_insert/storage_insert_bench.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string_view>

#include "bson/builder.h"
#include "catalog/catalog.h"
#include "storage/engine.h"

namespace quarry::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

bson::Document MakeDocument(std::size_t index, std::size_t target_bytes, std::mt19937_64& rng) {
  bson::DocumentBuilder b;
  b.AppendObjectId("_id", bson::ObjectId::Generate());
  b.AppendInt64("seq", static_cast<std::int64_t>(index));
  b.AppendString("name", "user" + std::to_string(rng() % 100000));
  b.AppendDouble("score", static_cast<double>(rng() % 10000) / 100.0);
  b.AppendDate("created", 1'700'000'000'000 + static_cast<std::int64_t>(index));
  b.OpenArray("tags");
  b.AppendString("0", "alpha");
  b.AppendString("1", "beta");
  b.Close();
  // Pad with text to the target size (the element header and terminator take 12 bytes), cut
  // from a random pool at a random offset so that documents differ without per-byte work.
  static const std::string kPool = [] {
    std::mt19937_64 pool_rng(7);
    static const char kLetters[] = "abcdefghijklmnopqrstuvwxyz     ";
    std::string pool(1 << 16, ' ');
    for (char& c : pool) c = kLetters[pool_rng() % (sizeof(kLetters) - 1)];
    return pool;
  }();
  std::size_t used = b.size() + 12;
  std::size_t length = std::min(target_bytes > used ? target_bytes - used : 0, kPool.size() / 2);
  std::string_view text(kPool.data() + rng() % (kPool.size() / 2), length);
  b.AppendString("text", text);
  return std::move(b).Finish();
}

}  // namespace

StatusWith<StorageInsertBenchResult> RunStorageInsertBench(
    const StorageInsertBenchOptions& options) {
  std::string dbpath = options.dbpath;
  bool temporary = dbpath.empty();
  if (temporary) {
    dbpath = (std::filesystem::temp_directory_path() /
              ("quarry_storage_insert_bench_" + std::to_string(::getpid())))
                 .string();
    std::filesystem::remove_all(dbpath);
  }

  StorageInsertBenchResult result;
  {
    storage::EngineOptions engine_options;
    engine_options.dbpath = dbpath;
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<storage::Engine> engine,
                            storage::Engine::Open(engine_options));
    QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> catalog,
                            catalog::Catalog::Load(engine.get()));
    QUARRY_ASSIGN_OR_RETURN(auto info, catalog->EnsureCollection("bench", "storage_insert"));

    const std::string ns = info->ns();
    const storage::CollectionRef target{.id = info->id, .ns = ns, .uuid = info->uuid.view()};
    std::mt19937_64 rng(42);
    const storage::CommitOptions commit_options{.ordered = true, .durability = options.durability};
    Clock::duration commit_time{};
    Clock::time_point start = Clock::now();
    std::size_t done = 0;
    while (done < options.documents) {
      std::size_t n = std::min(options.batch_size, options.documents - done);
      storage::WriteUnit unit;
      unit.Reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        bson::Document doc = MakeDocument(done + i, options.document_bytes, rng);
        result.bson_bytes += doc.size();
        unit.Insert(target, doc);
      }
      Clock::time_point commit_start = Clock::now();
      QUARRY_ASSIGN_OR_RETURN(storage::CommitResult committed,
                              engine->pipeline().Commit(std::move(unit), commit_options));
      commit_time += Clock::now() - commit_start;
      if (!committed.errors.empty()) return committed.errors.front().status;
      done += n;
    }
    result.seconds = Seconds(Clock::now() - start);
    result.commit_seconds = Seconds(commit_time);
    result.documents = done;
    result.documents_per_second =
        result.seconds > 0 ? static_cast<double>(done) / result.seconds : 0;
    if (engine->records().Count(info->id) != static_cast<std::int64_t>(done)) {
      return Status(ErrorCode::kInternalError, "the collection does not hold every document");
    }
  }
  if (temporary) std::filesystem::remove_all(dbpath);
  return result;
}

}  // namespace quarry::bench
