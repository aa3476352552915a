#include "server/held_writes.h"

#include <pthread.h>

namespace quarry::server {

HeldWrites::~HeldWrites() {
  lock_.UnlockAll();
  std::list<Held> held;
  {
    std::lock_guard lock(mu_);
    held.swap(held_);
  }
  for (Held& h : held) h.thread.join();
}

void HeldWrites::Start(std::function<void()> task) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard lock(mu_);
  JoinFinished();
  held_.push_back({std::thread([task = std::move(task), done] {
                     pthread_setname_np(pthread_self(), "heldWrite");
                     task();
                     done->store(true, std::memory_order_release);
                   }),
                   done});
}

void HeldWrites::JoinFinished() {
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->done->load(std::memory_order_acquire)) {
      it->thread.join();
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace quarry::server
