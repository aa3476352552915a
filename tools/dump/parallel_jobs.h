// Runs jobs (collections to dump, restore or copy) on a few threads, each with its own state
// (its connections): the first job that fails stops the others from taking more.
#pragma once

#include <algorithm>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"

namespace quarry::tools::dumping {

// `setup()` gives a thread's state as StatusWith<State>; `work(State&, Job&)` gives a Status.
// Returns the first error, from setup or work.
template <typename Job, typename Setup, typename Work>
Status RunInParallel(std::vector<Job> jobs, int threads, Setup setup, Work work) {
  std::deque<Job> queue(std::make_move_iterator(jobs.begin()), std::make_move_iterator(jobs.end()));
  std::mutex mutex;
  Status first_error = Status::OK();
  auto fail = [&](Status status) {
    std::lock_guard lock(mutex);
    if (first_error.ok()) first_error = std::move(status);
  };
  const int count = std::min(threads, static_cast<int>(std::max<std::size_t>(queue.size(), 1)));
  std::vector<std::thread> pool;
  for (int i = 0; i < count; ++i) {
    pool.emplace_back([&] {
      auto state = setup();
      if (!state.ok()) return fail(state.status());
      while (true) {
        Job job;
        {
          std::lock_guard lock(mutex);
          if (queue.empty() || !first_error.ok()) return;
          job = std::move(queue.front());
          queue.pop_front();
        }
        Status done = work(state.value(), job);
        if (!done.ok()) return fail(std::move(done));
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
  return first_error;
}

}  // namespace quarry::tools::dumping
