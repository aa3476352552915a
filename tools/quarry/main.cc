// quarry: the command-line tool. This file only parses arguments and prints; the work is in
// tested library code (tools/bench/ for `quarry bench`, tools/watch/ for `quarry watch`,
// tools/export/ for `quarry export`, over tools/client/).
//   quarry bench network --uri URI [--compressors none,snappy,zlib,zstd] [--zlib-level N]
//                        [--megabytes 10] [--batch-size 100] [--json] [--chart FILE.svg]
//   quarry watch --uri URI [--db D] [--collection C] [--full-document updateLookup]
//                [--resume-token-file F]   (tools/watch/; runs until SIGINT/SIGTERM)
//   quarry bench bulk --uri URI [--documents 200000] [--size 1kb] [--rounds ...] [--json] ...
//   quarry bench large-docs --uri URI [--sizes 1,5,10] [--compressors none,snappy,zstd]
//                           [--repeat 5] [--server-pid PID] [--json] [--chart FILE.svg]
//   quarry export --uri URI [-d DB] -c C [-o FILE] [-q JSON] [-f a,b.c | --fieldFile F]
//                 [--sort JSON] [--skip N] [--limit N] [--type json|csv] [--jsonArray]
//                 [--pretty] [--jsonFormat relaxed|canonical] [--noHeaderLine]
//                 (tools/export/; mongoexport's flags; "exported N records" on stderr)
//   quarry import --uri URI [-d DB] [-c C] [--file F] [--type json|csv|tsv] [--jsonArray]
//                 [--headerline | -f a,b.c | --fieldFile F] [--columnsHaveTypes] [--mode M]
//                 [--upsertFields a,b] [--drop] [--stopOnError] [--numInsertionWorkers N] ...
//                 (tools/import/; mongoimport's flags; "N documents imported, M failed")
//   quarry dump --uri URI [-d DB [-c C [-q JSON]]] [-o DIR | --archive[=FILE]] [--gzip] [-j N]
//   quarry dump ... --oplog   (point in time: also the changes made while it runs)
//   quarry restore --uri URI [DIR | --archive[=FILE]] [--gzip] [--drop] [--nsInclude P]
//                  [--nsExclude P] [--noIndexRestore] [--stopOnError] [--oplogReplay] [-j N]
//                 (tools/dump/; mongodump's and mongorestore's directory and archive formats)
//   quarry backup --uri URI --out DIR   (tools/dump/; the server's createBackup: DIR is an absolute
//                                        path on the server's machine, a dbpath for quarryd)
//   quarry copy --from URI --to URI [-d DB [-c C]] [--drop] [--follow [--resume-token-file F]]
//               [-j N]   (tools/dump/; --follow runs until SIGINT/SIGTERM)
// Exit status: 0 success, 1 the run failed, 2 bad arguments.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "tools/bench/bulk_bench.h"
#include "tools/bench/large_docs_bench.h"
#include "tools/bench/network_bench.h"
#include "tools/client/byte_size.h"
#include "tools/client/progress.h"
#include "tools/client/result_table.h"
#include "tools/client/svg_chart.h"
#include "tools/dump/backup_run.h"
#include "tools/dump/copy_run.h"
#include "tools/dump/dump_run.h"
#include "tools/dump/restore_run.h"
#include "tools/export/export_run.h"
#include "tools/import/import_run.h"
#include "tools/watch/change_watcher.h"

namespace {

namespace bench = quarry::tools::bench;
namespace client = quarry::tools::client;

constexpr int kRunFailed = 1;
constexpr int kBadArguments = 2;

// What every bench subcommand shares: where to connect and how to print.
struct OutputFlags {
  std::string uri = "mongodb://localhost:27017";
  bool json = false;
  std::string chart;
  bool no_progress = false;
};

void AddCommonFlags(CLI::App* command, OutputFlags* flags) {
  command->add_option("--uri", flags->uri, "MongoDB connection string of the server to measure")
      ->capture_default_str();
  command->add_flag("--json", flags->json, "print the results as one JSON object");
  command->add_option("--chart", flags->chart, "also draw the table as an SVG bar chart here");
  command->add_flag("--no-progress", flags->no_progress,
                    "no progress bar on stderr (it shows only on a terminal anyway)");
}

int Fail(const std::string& command, const quarry::Status& status, int code) {
  std::fprintf(stderr, "quarry bench %s: %s\n", command.c_str(),
               std::string(status.reason()).c_str());
  return code;
}

int Print(const std::string& command, const OutputFlags& flags, const client::ResultTable& table,
          const client::ChartOptions& chart) {
  if (flags.json) {
    std::printf("%s\n", client::FormatJson(table).c_str());
  } else {
    std::fputs(client::FormatText(table).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!flags.chart.empty()) {
    quarry::Status written = client::WriteBarChartSvg(table, chart, flags.chart);
    if (!written.ok()) return Fail(command, written, kRunFailed);
  }
  return 0;
}

// Set by SIGINT/SIGTERM; `quarry watch` polls it between awaited getMores.
std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested.store(true); }

int RunWatchCommand(const quarry::tools::watch::WatchOptions& options) {
  struct sigaction action = {};
  action.sa_handler = RequestStop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  auto printed = quarry::tools::watch::RunWatch(options, stdout, stop_requested);
  if (!printed.ok()) {
    std::fprintf(stderr, "quarry watch: %s\n", std::string(printed.status().reason()).c_str());
    return printed.status().code() == quarry::ErrorCode::kBadValue ? kBadArguments : kRunFailed;
  }
  return 0;
}

int RunExportCommand(const quarry::tools::exporting::ExportOptions& options) {
  namespace exporting = quarry::tools::exporting;
  auto plan = exporting::PlanExport(options);
  if (!plan.ok()) {
    std::fprintf(stderr, "quarry export: %s\n", std::string(plan.status().reason()).c_str());
    return kBadArguments;
  }
  // A closed pipe (`quarry export ... | head`) must fail the write with EPIPE, reported once,
  // rather than kill the process silently.
  std::signal(SIGPIPE, SIG_IGN);
  const bool terminal = client::IsTerminal(stderr);
  client::ProgressBar progress(stderr, terminal);
  plan.value().estimate_total = terminal;  // a total only a progress bar would show
  auto exported = exporting::RunExport(plan.value(), progress);
  if (!exported.ok()) {
    std::fprintf(stderr, "quarry export: %s\n", std::string(exported.status().reason()).c_str());
    return kRunFailed;
  }
  std::fprintf(stderr, "%s\n", exporting::ExportedLine(exported.value()).c_str());
  return 0;
}

int ImportFail(const quarry::Status& status, int code) {
  std::fprintf(stderr, "quarry import: %s\n", std::string(status.reason()).c_str());
  return code;
}

int RunImportCommand(quarry::tools::importing::ImportOptions options) {
  namespace importing = quarry::tools::importing;
  quarry::Status valid = importing::ResolveImportOptions(&options);
  if (!valid.ok()) return ImportFail(valid, kBadArguments);
  client::ProgressBar progress(stderr, client::IsTerminal(stderr));
  auto imported = importing::RunImport(options, progress, stderr);
  if (!imported.ok()) {
    return ImportFail(imported.status(), imported.status().code() == quarry::ErrorCode::kBadValue
                                             ? kBadArguments
                                             : kRunFailed);
  }
  const importing::ImportResult& result = imported.value();
  std::fprintf(stderr, "%llu document%s imported, %llu failed\n",
               static_cast<unsigned long long>(result.imported), result.imported == 1 ? "" : "s",
               static_cast<unsigned long long>(result.failed));
  // As with mongoimport, documents that failed do not fail a run that went to the end.
  if (!result.error.ok()) return ImportFail(result.error, kRunFailed);
  return 0;
}

int DumpFail(const char* command, const quarry::Status& status, int code) {
  std::fprintf(stderr, "quarry %s: %s\n", command, std::string(status.reason()).c_str());
  return code;
}

int RunDumpCommand(const quarry::tools::dumping::DumpOptions& options) {
  namespace dumping = quarry::tools::dumping;
  quarry::Status valid = dumping::ValidateDumpOptions(options);
  if (!valid.ok()) return DumpFail("dump", valid, kBadArguments);
  if (options.archive && options.archive_path == "-") std::signal(SIGPIPE, SIG_IGN);
  auto dumped = dumping::RunDump(options, stderr);
  if (!dumped.ok()) return DumpFail("dump", dumped.status(), kRunFailed);
  return 0;
}

int RunRestoreCommand(const quarry::tools::dumping::RestoreOptions& options) {
  namespace dumping = quarry::tools::dumping;
  auto restored = dumping::RunRestore(options, stderr);
  if (!restored.ok()) {
    return DumpFail(
        "restore", restored.status(),
        restored.status().code() == quarry::ErrorCode::kBadValue ? kBadArguments : kRunFailed);
  }
  const dumping::RestoreResult& result = restored.value();
  // mongorestore's closing line.
  std::fprintf(stderr,
               "%llu document(s) restored successfully. %llu document(s) failed to restore.\n",
               static_cast<unsigned long long>(result.restored),
               static_cast<unsigned long long>(result.failed));
  if (!result.error.ok()) return DumpFail("restore", result.error, kRunFailed);
  return 0;
}

int RunCopyCommand(const quarry::tools::dumping::CopyOptions& options) {
  namespace dumping = quarry::tools::dumping;
  quarry::Status valid = dumping::ValidateCopyOptions(options);
  if (!valid.ok()) return DumpFail("copy", valid, kBadArguments);
  if (options.follow) {
    struct sigaction action = {};
    action.sa_handler = RequestStop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  }
  auto copied = dumping::RunCopy(options, stderr, stop_requested);
  if (!copied.ok()) return DumpFail("copy", copied.status(), kRunFailed);
  const dumping::CopyResult& result = copied.value();
  for (const dumping::CopyCount& count : result.counts) {
    std::fprintf(stderr, "%s: %lld on the source, %lld on the target\n", count.ns.c_str(),
                 static_cast<long long>(count.source), static_cast<long long>(count.target));
  }
  std::fprintf(stderr, "copied %llu documents, %llu failed; applied %lld changes\n",
               static_cast<unsigned long long>(result.documents),
               static_cast<unsigned long long>(result.failed),
               static_cast<long long>(result.changes_applied));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The bench, import, export and copy send and read messages of up to 48 MB.
  quarry::tools::client::TuneAllocator(argv);
  CLI::App app{"quarry: tools for Quarry and any MongoDB-compatible server"};
  app.require_subcommand(1);
  CLI::App* bench_command = app.add_subcommand("bench", "measure a server");
  bench_command->require_subcommand(1);

  OutputFlags network_flags;
  bench::NetworkBenchOptions network;
  std::string compressors = "none,snappy,zlib,zstd";
  CLI::App* network_command = bench_command->add_subcommand(
      "network", "write and read generated listings once per wire compressor");
  AddCommonFlags(network_command, &network_flags);
  network_command
      ->add_option("--compressors", compressors, "comma-separated: none,snappy,zlib,zstd")
      ->capture_default_str();
  network_command->add_option("--zlib-level", network.zlib_level,
                              "client zlib compression level, -1 (default) to 9");
  network_command
      ->add_option("--megabytes", network.megabytes,
                   "MB (10^6 bytes) of documents to write and read per compressor")
      ->capture_default_str();
  network_command
      ->add_option("--batch-size", network.batch_size, "documents per insert and per find batch")
      ->capture_default_str();
  network_command->add_option("--seed", network.seed, "seed of the data generator")
      ->capture_default_str();

  OutputFlags bulk_flags;
  bench::BulkBenchOptions bulk;
  std::string size = "1kb";
  std::string shape = "record";
  std::string rounds = "one-by-one,bulk,unack,unack-gle,journaled";
  bool no_driver_validation = false;
  CLI::App* bulk_command = bench_command->add_subcommand(
      "bulk", "insert the same documents one by one, in bulk, unacknowledged and journaled");
  AddCommonFlags(bulk_command, &bulk_flags);
  bulk_command->add_option("--documents", bulk.documents, "documents per round")
      ->capture_default_str();
  bulk_command->add_option("--size", size, "BSON size of each document (1kb = 1000 bytes)")
      ->capture_default_str();
  bulk_command
      ->add_option("--shape", shape, "record (flat, as bench/storage_insert) or listing (nested)")
      ->capture_default_str();
  bulk_command->add_option("--rounds", rounds, "comma-separated rounds to run")
      ->capture_default_str();
  bulk_command
      ->add_option("--one-by-one-documents", bulk.one_by_one_documents,
                   "documents in the one-by-one round (0: --documents)")
      ->capture_default_str();
  bulk_command->add_option("--seed", bulk.seed, "seed of the data generator")
      ->capture_default_str();
  bulk_command->add_flag("--no-driver-validation", no_driver_validation,
                         "skip the driver's per-document key and UTF-8 checks");

  OutputFlags large_flags;
  bench::LargeDocsOptions large;
  CLI::App* large_command = bench_command->add_subcommand(
      "large-docs", "1-10 MB JSON documents: Redis with client-side codecs vs wire compression");
  AddCommonFlags(large_command, &large_flags);
  large_command->add_option("--sizes", large.sizes_mb, "document sizes in MB")
      ->delimiter(',')
      ->capture_default_str();
  large_command->add_option("--compressors", large.compressors, "wire compressors for Quarry")
      ->delimiter(',')
      ->capture_default_str();
  large_command->add_option("--repeat", large.repeat, "puts and gets per row (medians shown)")
      ->capture_default_str();
  large_command
      ->add_option("--gridfs-mb", large.gridfs_mb,
                   "size of the GridFS file uploaded and downloaded (0: no GridFS row)")
      ->capture_default_str();
  large_command->add_option("--server-pid", large.server_pid,
                            "the server's PID when it runs here, for its CPU time");
  large_command->add_option("--redis-server", large.redis_server, "the redis-server to start")
      ->capture_default_str();
  large_command->add_option("--redis", large.redis_address,
                            "HOST:PORT of a running Redis to measure instead of starting one");
  large_command->add_option("--redis-pid", large.redis_pid,
                            "that Redis's PID when it runs here, for its CPU time");

  quarry::tools::watch::WatchOptions watch;
  watch.uri = "mongodb://localhost:27017";
  CLI::App* watch_command = app.add_subcommand(
      "watch", "print change events as relaxed Extended JSON lines until SIGINT/SIGTERM");
  watch_command->add_option("--uri", watch.uri, "MongoDB connection string")->capture_default_str();
  watch_command->add_option("--db", watch.database, "watch this database (default: all)");
  watch_command->add_option("--collection", watch.collection, "watch only this collection of --db");
  watch_command->add_option("--full-document", watch.full_document,
                            "fullDocument mode, e.g. updateLookup");
  watch_command->add_option("--resume-token-file", watch.resume_token_file,
                            "resume after the token saved here, and save each new one");

  quarry::tools::exporting::ExportOptions export_options;
  CLI::App* export_command = app.add_subcommand(
      "export", "write a collection's documents as Extended JSON or CSV (as mongoexport)");
  export_command->add_option("--uri", export_options.uri, "MongoDB connection string")
      ->capture_default_str();
  export_command->add_option("-d,--db", export_options.database,
                             "database (default: the URI's, else test)");
  export_command->add_option("-c,--collection", export_options.collection, "collection")
      ->required();
  export_command->add_option("-o,--out", export_options.out, "output file (default: stdout)");
  export_command->add_option("-q,--query", export_options.query,
                             "filter, as Extended JSON, e.g. '{\"x\": {\"$gt\": 1}}'");
  export_command->add_option("-f,--fields", export_options.fields,
                             "comma-separated field paths (projection; CSV columns)");
  export_command->add_option("--fieldFile", export_options.field_file,
                             "file of field paths, one per line");
  export_command->add_option("--sort", export_options.sort, "sort, as Extended JSON");
  export_command->add_option("--skip", export_options.skip, "documents to skip");
  export_command->add_option("--limit", export_options.limit, "at most this many documents");
  export_command->add_option("--type", export_options.type, "json or csv")->capture_default_str();
  export_command->add_flag("--jsonArray", export_options.json_array,
                           "write one JSON array instead of a document per line");
  export_command->add_flag("--pretty", export_options.pretty, "indent JSON documents");
  export_command->add_option("--jsonFormat", export_options.json_format, "relaxed or canonical")
      ->capture_default_str();
  export_command->add_flag("--noHeaderLine", export_options.no_header_line,
                           "CSV without the line of field names");

  namespace importing = quarry::tools::importing;
  importing::ImportOptions import_options;
  std::string import_type = "json";
  std::string import_mode;
  std::string import_grace = "stop";
  std::string upsert_fields;
  std::string import_fields;
  CLI::App* import_command =
      app.add_subcommand("import", "read JSON, CSV or TSV into a collection (as mongoimport)");
  import_command->add_option("--uri", import_options.uri, "MongoDB connection string")
      ->capture_default_str();
  import_command->add_option("-d,--db", import_options.database,
                             "database (default: the URI's, else test)");
  import_command->add_option("-c,--collection", import_options.collection,
                             "collection (default: the file's name without its extension)");
  import_command->add_option("--file", import_options.file, "input file (default: stdin)");
  import_command->add_option("--type", import_type, "json, csv or tsv")->capture_default_str();
  import_command->add_flag("--jsonArray", import_options.json_array,
                           "the input is one JSON array of documents");
  import_command->add_flag("--headerline", import_options.header_line,
                           "CSV/TSV: the first line names the fields");
  import_command->add_option("-f,--fields", import_fields, "CSV/TSV: comma-separated field names");
  import_command->add_option("--fieldFile", import_options.field_file,
                             "CSV/TSV: a file of field names, one per line");
  import_command->add_flag("--columnsHaveTypes", import_options.columns_have_types,
                           "CSV/TSV: field names carry types, e.g. age.int32()");
  import_command->add_flag("--ignoreBlanks", import_options.ignore_blanks,
                           "CSV/TSV: leave empty values out");
  import_command
      ->add_option("--parseGrace", import_grace,
                   "a value its type cannot read: autoCast, skipField, skipRow or stop")
      ->capture_default_str();
  import_command->add_option("--mode", import_mode, "insert, upsert, merge or delete");
  import_command->add_option(
      "--upsertFields", upsert_fields,
      "comma-separated fields that find a document's counterpart (default _id)");
  import_command->add_flag("--drop", import_options.drop, "drop the collection first");
  import_command->add_flag("--stopOnError", import_options.stop_on_error,
                           "stop at the first document that fails");
  import_command->add_flag("--maintainInsertionOrder", import_options.maintain_insertion_order,
                           "write in the input's order (one worker)");
  import_command
      ->add_option("-j,--numInsertionWorkers", import_options.insertion_workers,
                   "connections writing in parallel")
      ->capture_default_str();
  import_command->add_option("--writeConcern", import_options.write_concern,
                             "e.g. majority or '{w: 1, j: true}'");
  import_command
      ->add_option("--batchSize", import_options.batch_documents, "documents per bulk write")
      ->capture_default_str();

  namespace dumping = quarry::tools::dumping;
  dumping::DumpOptions dump_options;
  std::string dump_archive;
  bool dump_oplog = false;
  CLI::App* dump_command =
      app.add_subcommand("dump", "write databases as mongodump does (a directory, or an archive)");
  dump_command->add_option("--uri", dump_options.uri, "MongoDB connection string")
      ->capture_default_str();
  dump_command->add_option("-d,--db", dump_options.database, "only this database");
  dump_command->add_option("-c,--collection", dump_options.collection,
                           "only this collection of --db");
  dump_command->add_option("-q,--query", dump_options.query,
                           "only the documents matching this Extended JSON filter (with -c)");
  dump_command->add_option("-o,--out", dump_options.out, "output directory")->capture_default_str();
  dump_command->add_option("--archive", dump_archive, "write one archive to FILE (no FILE: stdout)")
      ->expected(0, 1);
  dump_command->add_flag("--gzip", dump_options.gzip, "compress every file (or the archive)");
  dump_command
      ->add_option("-j,--numParallelCollections", dump_options.parallel_collections,
                   "collections dumped at once")
      ->capture_default_str();
  dump_command
      ->add_option("--excludeCollection", dump_options.exclude_collections,
                   "leave this collection of --db out (repeatable)")
      ->allow_extra_args(false);
  dump_command->add_flag("--oplog", dump_oplog,
                         "also write the changes made during the dump (whole-server dumps)");

  dumping::RestoreOptions restore_options;
  std::string restore_archive;
  std::string restore_db;
  std::string restore_collection;
  bool restore_oplog = false;
  CLI::App* restore_command = app.add_subcommand(
      "restore", "load a dump directory or archive (mongodump's formats) into a server");
  restore_command->add_option("--uri", restore_options.uri, "MongoDB connection string")
      ->capture_default_str();
  restore_command->add_option("dir,--dir", restore_options.dir, "dump directory")
      ->capture_default_str();
  restore_command
      ->add_option("--archive", restore_archive, "read one archive from FILE (no FILE: stdin)")
      ->expected(0, 1);
  restore_command->add_flag("--gzip", restore_options.gzip, "the dump is gzip-compressed");
  restore_command->add_flag("--drop", restore_options.drop,
                            "drop each collection before restoring it");
  restore_command
      ->add_option("--nsInclude", restore_options.ns_include,
                   "restore only these namespaces, e.g. shop.* (repeatable)")
      ->allow_extra_args(false);
  restore_command
      ->add_option("--nsExclude", restore_options.ns_exclude,
                   "leave these namespaces out (repeatable)")
      ->allow_extra_args(false);
  restore_command->add_option("-d,--db", restore_db, "only this database (as --nsInclude DB.*)");
  restore_command->add_option("-c,--collection", restore_collection,
                              "only this collection of --db");
  restore_command->add_flag("--noIndexRestore", restore_options.no_index_restore,
                            "do not build the dumped indexes");
  restore_command->add_flag("--stopOnError", restore_options.stop_on_error,
                            "stop at the first document that fails");
  restore_command
      ->add_option("-j,--numParallelCollections", restore_options.parallel_collections,
                   "collections restored at once")
      ->capture_default_str();
  restore_command
      ->add_option("--batchSize", restore_options.batch_documents, "documents per insert")
      ->capture_default_str();
  restore_command->add_flag("--oplogReplay", restore_oplog,
                            "replay a point-in-time dump's oplog after its collections");

  dumping::CopyOptions copy_options;
  CLI::App* copy_command = app.add_subcommand(
      "copy", "copy databases or collections from one server to another, then follow changes");
  copy_command->add_option("--from", copy_options.from, "source connection string")->required();
  copy_command->add_option("--to", copy_options.to, "target connection string")->required();
  copy_command->add_option("-d,--db", copy_options.database, "only this database");
  copy_command->add_option("-c,--collection", copy_options.collection,
                           "only this collection of --db");
  copy_command
      ->add_option("--excludeCollection", copy_options.exclude_collections,
                   "leave this collection of --db out (repeatable)")
      ->allow_extra_args(false);
  copy_command->add_flag("--drop", copy_options.drop, "drop each target collection first");
  copy_command->add_flag("--follow", copy_options.follow,
                         "then apply the source's changes until SIGINT/SIGTERM");
  copy_command->add_option("--resume-token-file", copy_options.resume_token_file,
                           "--follow: keep the position here; a restart resumes from it");
  copy_command
      ->add_option("-j,--numParallelCollections", copy_options.parallel_collections,
                   "collections copied at once")
      ->capture_default_str();
  copy_command
      ->add_option("--numParallelRanges", copy_options.ranges_per_collection,
                   "_id ranges of one large collection copied at once (1: one reader)")
      ->capture_default_str();
  copy_command
      ->add_option("--batchSize", copy_options.batch_documents, "documents per read and write")
      ->capture_default_str();

  dumping::BackupOptions backup_options;
  CLI::App* backup_command = app.add_subcommand(
      "backup", "hot backup of a running server into a directory on the server's machine");
  backup_command->add_option("--uri", backup_options.uri, "MongoDB connection string")
      ->capture_default_str();
  backup_command->add_option("-o,--out", backup_options.out,
                             "absolute path, on the server's machine, of a new or empty directory");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "quarry: %s (see --help)\n", e.what());
    return kBadArguments;
  }

  if (watch_command->parsed()) return RunWatchCommand(watch);
  if (export_command->parsed()) return RunExportCommand(export_options);
  if (copy_command->parsed()) return RunCopyCommand(copy_options);
  if (backup_command->parsed()) {
    quarry::Status valid = dumping::ValidateBackupOptions(backup_options);
    if (!valid.ok()) return DumpFail("backup", valid, kBadArguments);
    quarry::Status backed_up = dumping::RunBackup(backup_options);
    if (!backed_up.ok()) return DumpFail("backup", backed_up, kRunFailed);
    std::fprintf(stderr, "backup written to %s on the server's machine\n",
                 backup_options.out.c_str());
    return 0;
  }
  if (dump_command->parsed()) {
    dump_options.oplog = dump_oplog;
    if (dump_command->count("--archive") > 0) {
      dump_options.archive = true;
      dump_options.archive_path = dump_archive.empty() ? "-" : dump_archive;
    }
    return RunDumpCommand(dump_options);
  }
  if (restore_command->parsed()) {
    restore_options.oplog_replay = restore_oplog;
    if (restore_command->count("--archive") > 0) {
      restore_options.archive = true;
      restore_options.archive_path = restore_archive.empty() ? "-" : restore_archive;
    }
    if (!restore_collection.empty() && restore_db.empty()) {
      return DumpFail("restore",
                      quarry::Status(quarry::ErrorCode::kBadValue, "--collection needs --db"),
                      kBadArguments);
    }
    if (!restore_db.empty()) {
      restore_options.ns_include.push_back(restore_db + "." +
                                           (restore_collection.empty() ? "*" : restore_collection));
    }
    return RunRestoreCommand(restore_options);
  }
  if (import_command->parsed()) {
    if (import_type == "json") {
      import_options.type = importing::InputType::kJson;
    } else if (import_type == "csv") {
      import_options.type = importing::InputType::kCsv;
    } else if (import_type == "tsv") {
      import_options.type = importing::InputType::kTsv;
    } else {
      return ImportFail(quarry::Status(quarry::ErrorCode::kBadValue,
                                       "unknown --type " + import_type + " (json, csv or tsv)"),
                        kBadArguments);
    }
    import_options.fields = client::SplitList(import_fields);
    import_options.upsert_fields = client::SplitList(upsert_fields);
    // As in mongoimport, upsert fields without a mode mean upsert.
    if (import_mode.empty()) import_mode = upsert_fields.empty() ? "insert" : "upsert";
    static const std::map<std::string, importing::ImportMode> kModes = {
        {"insert", importing::ImportMode::kInsert},
        {"upsert", importing::ImportMode::kUpsert},
        {"merge", importing::ImportMode::kMerge},
        {"delete", importing::ImportMode::kDelete}};
    auto mode = kModes.find(import_mode);
    if (mode == kModes.end()) {
      return ImportFail(
          quarry::Status(quarry::ErrorCode::kBadValue,
                         "unknown --mode " + import_mode + " (insert, upsert, merge or delete)"),
          kBadArguments);
    }
    if (mode->second == importing::ImportMode::kInsert && !upsert_fields.empty()) {
      return ImportFail(quarry::Status(quarry::ErrorCode::kBadValue,
                                       "--upsertFields needs --mode upsert, merge or delete"),
                        kBadArguments);
    }
    import_options.mode = mode->second;
    static const std::map<std::string, importing::ParseGrace> kGraces = {
        {"autoCast", importing::ParseGrace::kAutoCast},
        {"skipField", importing::ParseGrace::kSkipField},
        {"skipRow", importing::ParseGrace::kSkipRow},
        {"stop", importing::ParseGrace::kStop}};
    auto grace = kGraces.find(import_grace);
    if (grace == kGraces.end()) {
      return ImportFail(quarry::Status(quarry::ErrorCode::kBadValue,
                                       "unknown --parseGrace " + import_grace +
                                           " (autoCast, skipField, skipRow or stop)"),
                        kBadArguments);
    }
    import_options.parse_grace = grace->second;
    return RunImportCommand(std::move(import_options));
  }

  if (large_command->parsed()) {
    large.uri = large_flags.uri;
    quarry::Status valid = bench::ValidateLargeDocsOptions(large);
    if (!valid.ok()) return Fail("large-docs", valid, kBadArguments);
    client::ProgressBar progress(stderr, !large_flags.no_progress && client::IsTerminal(stderr));
    auto table = bench::RunLargeDocsBench(large, progress);
    if (!table.ok()) return Fail("large-docs", table.status(), kRunFailed);
    return Print("large-docs", large_flags, table.value(), bench::LargeDocsChart(table.value()));
  }
  if (network_command->parsed()) {
    network.uri = network_flags.uri;
    network.compressors = client::SplitList(compressors);
    quarry::Status valid = bench::ValidateNetworkBenchOptions(network);
    if (!valid.ok()) return Fail("network", valid, kBadArguments);
    client::ProgressBar progress(stderr, !network_flags.no_progress && client::IsTerminal(stderr));
    auto result = bench::RunNetworkBench(network, progress);
    if (!result.ok()) return Fail("network", result.status(), kRunFailed);
    client::ResultTable table = bench::NetworkBenchTable(network, result.value());
    return Print("network", network_flags, table, bench::NetworkBenchChart(table));
  }

  bulk.uri = bulk_flags.uri;
  bulk.driver_validation = !no_driver_validation;
  auto bytes = client::ParseByteSize(size);
  if (!bytes.ok()) return Fail("bulk", bytes.status(), kBadArguments);
  bulk.document_bytes = bytes.value();
  if (shape == "record") {
    bulk.shape = bench::DocumentShape::kRecord;
  } else if (shape == "listing") {
    bulk.shape = bench::DocumentShape::kListing;
  } else {
    return Fail("bulk",
                quarry::Status(quarry::ErrorCode::kBadValue,
                               "unknown shape '" + shape + "' (choose record or listing)"),
                kBadArguments);
  }
  bulk.rounds.clear();
  for (const std::string& name : client::SplitList(rounds)) {
    auto round = bench::ParseBulkRound(name);
    if (!round.ok()) return Fail("bulk", round.status(), kBadArguments);
    bulk.rounds.push_back(round.value());
  }
  quarry::Status valid = bench::ValidateBulkBenchOptions(bulk);
  if (!valid.ok()) return Fail("bulk", valid, kBadArguments);
  client::ProgressBar progress(stderr, !bulk_flags.no_progress && client::IsTerminal(stderr));
  auto result = bench::RunBulkBench(bulk, progress);
  if (!result.ok()) return Fail("bulk", result.status(), kRunFailed);
  client::ResultTable table = bench::BulkBenchTable(bulk, result.value());
  return Print("bulk", bulk_flags, table, bench::BulkBenchChart(table));
}
