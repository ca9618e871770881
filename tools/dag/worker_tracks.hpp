// Which worker thread ran each vertex, as small stable numbers (1, 2, ...)
// in the order the threads first ran a vertex: a trace draws one track per
// worker.
#pragma once

#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace dagcli {

class WorkerTracks {
  public:
    // Called from the walk's callback, on the thread running `vertex`.
    void note(uint64_t vertex);
    // The track of a vertex that ran; 0 for one that did not.
    int of(uint64_t vertex) const;

  private:
    mutable std::mutex mutex_;
    std::unordered_map<std::thread::id, int> workers_;
    std::unordered_map<uint64_t, int> tracks_;
};

}  // namespace dagcli
