#include "kubebridge/mirrors/pass_triggers.h"

namespace credledger::kubebridge {

void PassTriggers::Outside(const std::string& identity) {
  absl::MutexLock lock(&mu_);
  identities_[identity].outside = true;
}

bool PassTriggers::MirrorModified(const std::string& identity, const std::string& ns,
                                  const std::string& resource_version) {
  absl::MutexLock lock(&mu_);
  Identity& id = identities_[identity];
  MirrorVersion version{ns, resource_version};
  if (id.written.erase(version) > 0) return false;
  if (id.running) {
    id.reported.push_back(std::move(version));
    return false;
  }
  id.outside = true;
  return true;
}

bool PassTriggers::Begin(const std::string& identity, int64_t stream_version) {
  absl::MutexLock lock(&mu_);
  Identity& id = identities_[identity];
  if (!id.outside && id.settled == stream_version) return false;
  id.outside = false;
  id.running = true;
  return true;
}

bool PassTriggers::End(const std::string& identity, const MirrorReconcileResult* result) {
  absl::MutexLock lock(&mu_);
  Identity& id = identities_[identity];
  id.running = false;
  // Echoes of earlier passes not seen by now are not awaited any longer.
  std::set<MirrorVersion> written;
  if (result != nullptr)
    written.insert(result->updated_versions.begin(), result->updated_versions.end());
  bool unmatched = false;
  for (const MirrorVersion& version : id.reported) {
    if (written.erase(version) == 0 && id.written.count(version) == 0) unmatched = true;
  }
  id.reported.clear();
  id.written = std::move(written);
  const bool left_work = result == nullptr || result->retry || result->held_back > 0 ||
                         result->others_appended || result->stream_version < 0;
  id.settled = left_work ? std::nullopt : std::optional<int64_t>(result->stream_version);
  // A retry, a hold's end or an unmatched update must find the next pass run.
  if (left_work || unmatched) id.outside = true;
  return unmatched;
}

}  // namespace credledger::kubebridge
