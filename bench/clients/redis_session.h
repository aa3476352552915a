// The benchmarks' Redis connection is tools/client's (the `quarry bench` subcommands use it too);
// these names keep the benchmarks' own spelling.
#pragma once

#include "tools/client/redis_session.h"

namespace quarry::bench {

using tools::client::RedisCommand;
using tools::client::RedisReplyDeleter;
using tools::client::RedisReplyPtr;
using tools::client::RedisSession;

}  // namespace quarry::bench
