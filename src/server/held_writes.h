// The threads of writes that arrive while fsync's lock is held. Each waits on a thread of its
// own, as it would on its connection's thread in mongod, so waiting writes never hold an io
// thread (which serves the fsyncUnlock) nor a worker (which serves other clients' reads).
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "commands/fsync_lock.h"

namespace quarry::server {

class HeldWrites {
 public:
  explicit HeldWrites(commands::FsyncLock& lock) : lock_(lock) {}
  // Lets go of fsync's lock, so that every waiting write runs, then joins their threads.
  ~HeldWrites();
  HeldWrites(const HeldWrites&) = delete;
  HeldWrites& operator=(const HeldWrites&) = delete;

  // Runs `task` on a new thread (it waits there for fsync's lock to go).
  void Start(std::function<void()> task);

 private:
  struct Held {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void JoinFinished();  // REQUIRES: mu_ held

  commands::FsyncLock& lock_;
  std::mutex mu_;
  std::list<Held> held_;  // guarded by mu_
};

}  // namespace quarry::server
