// The threads that run commands which may take long (scans, aggregations, bulk writes, index
// builds), so that they never hold the io thread that serves other connections' short
// requests. A fixed number of threads take tasks in the order they were posted; more posted
// work waits in the queue, which bounds how many long commands run at once.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace quarry::server {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  // Runs every task already posted, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Post(std::function<void()> task);

  // Threads for a machine with `cores` cores: enough that a few long commands leave threads
  // free for more of them, few enough to bound their memory.
  static int DefaultThreads(unsigned cores);

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace quarry::server
