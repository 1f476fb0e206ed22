// PassTriggers: tells the mirror bridge when a queued identity need not run again because
// the only changes since its last pass are that pass's own (docs/mirrors.md, "How a change
// propagates"): the events its outcomes appended to the identity's stream, and the updates of
// its mirrors that the mirror watch reports back.
//
// A pass is skipped only when nothing but such echoes asked for it: no other trigger (a watch
// of a source, a namespace or a mirror changed by someone else, the resync, a cluster, the end
// of a hold, a retry) came since the last pass began, and the identity's stream is at the
// version the last pass left it at, that pass having ended without error, without a namespace
// left waiting, without one held back, and without events of others appended after it read
// the identity's state. A mirror update is an echo when its
// resourceVersion is one a pass of the identity wrote; one reported while a pass runs is
// decided when the pass ends.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "kubebridge/mirrors/mirror_reconciler.h"

namespace credledger::kubebridge {

class PassTriggers {
 public:
  // Something other than the identity's stream asks for a pass of `identity`.
  void Outside(const std::string& identity);

  // The mirror watch saw the mirror of `identity` in namespace `ns` modified, now at
  // `resource_version`. Returns whether to queue the identity: false for the echo of an
  // update one of its passes made, and while one of its passes runs (End decides then).
  bool MirrorModified(const std::string& identity, const std::string& ns,
                      const std::string& resource_version);

  // Whether a pass of `identity`, whose stream is at `stream_version` (-1: unknown), must run
  // (see the header); when it must, the pass begins.
  bool Begin(const std::string& identity, int64_t stream_version);

  // The pass of `identity` that Begin began ended; `result` is what it did (null when it
  // failed). Returns whether to queue the identity again: a mirror update reported during the
  // pass was not one of its writes.
  bool End(const std::string& identity, const MirrorReconcileResult* result);

 private:
  using MirrorVersion = std::pair<std::string, std::string>;  // namespace, resourceVersion
  struct Identity {
    bool outside = true;  // a trigger other than an echo came since the last Begin
    bool running = false;
    // The stream version the last pass left the stream at, when that pass left nothing to
    // do; nullopt otherwise.
    std::optional<int64_t> settled;
    // Mirror updates of the last passes whose echo has not come yet.
    std::set<MirrorVersion> written;
    // Mirror updates reported while the pass runs.
    std::vector<MirrorVersion> reported;
  };

  absl::Mutex mu_;
  std::map<std::string, Identity> identities_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
