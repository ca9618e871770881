#include "worker_tracks.hpp"

namespace dagcli {

void WorkerTracks::note(uint64_t vertex) {
    std::lock_guard lock(mutex_);
    const int next = static_cast<int>(workers_.size()) + 1;
    tracks_[vertex] = workers_.try_emplace(std::this_thread::get_id(), next).first->second;
}

int WorkerTracks::of(uint64_t vertex) const {
    std::lock_guard lock(mutex_);
    auto found = tracks_.find(vertex);
    return found == tracks_.end() ? 0 : found->second;
}

}  // namespace dagcli
