// `quarry watch`: follows a change stream and prints each event as one line of relaxed
// Extended JSON, saving the resume token after each so a restarted watcher resumes after the
// last event it printed.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/status.h"

namespace quarry::tools::watch {

struct WatchOptions {
  std::string uri;
  // Scope: the collection `database.collection`, the whole `database`, or (both empty) every
  // database of the deployment.
  std::string database;
  std::string collection;
  // The $changeStream fullDocument option ("" leaves the server's default).
  std::string full_document;
  // Where the resume token is kept; "" keeps none (start from now, save nothing).
  std::string resume_token_file;
  // How long one awaited getMore may block: also how soon a stop request is noticed.
  int max_await_ms = 500;
};

// kBadValue for a collection without a database or an unknown fullDocument mode.
Status ValidateWatchOptions(const WatchOptions& options);

// Watches until `stop` becomes true (it is polled between awaited getMores, so a signal
// handler may set it) and returns the number of events printed to `out`, each flushed as it is
// printed. Starts after the token in the resume token file when there is one. Fails with
// kHostUnreachable when no server answers, kBadValue for a bad token file, or the server's
// error (e.g. a token it cannot resume from).
StatusWith<std::int64_t> RunWatch(const WatchOptions& options, std::FILE* out,
                                  const std::atomic<bool>& stop);

}  // namespace quarry::tools::watch
