#include "ticker.hpp"

#include <utility>

namespace dagcli {

Ticker::Ticker(std::chrono::milliseconds interval, std::function<void()> tick)
    : thread_([this, interval, tick = std::move(tick)] {
          std::unique_lock lock(mutex_);
          while (!stop_.wait_for(lock, interval, [this] { return stopping_; })) {
              lock.unlock();
              tick();
              lock.lock();
          }
      }) {}

Ticker::~Ticker() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
}

}  // namespace dagcli
