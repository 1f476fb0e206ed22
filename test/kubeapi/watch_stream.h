// WatchStream: one Kubernetes watch (`GET ...?watch=true`) streamed as newline-delimited
// JSON events {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}.
//
// Start position (`resourceVersion`): absent or "0" sends a synthetic ADDED event for
// every current object (in key order) and then changes after that snapshot; N streams the
// changes after N. When N is older than the store's kept history (or the watcher falls
// that far behind) the stream carries one ERROR event whose object is a Status with code
// 410, reason Expired, message "too old resource version: N (oldest)", and ends.
// Filtering: the URL namespace, `labelSelector` and `fieldSelector`; a modification that
// moves an object into (out of) the selection is sent as ADDED (DELETED), as in Kubernetes.
// Bookmarks (`allowWatchBookmarks=true`): {"kind","apiVersion","metadata":
// {"resourceVersion"}} every ServerConfig::bookmark_interval (real time), whenever
// ObjectStore::RequestBookmarks() is called, and, as kube-apiserver does, once about
// kFinalBookmarkLead before the stream's timeout ends it, so that the client resumes from a
// current version; with `sendInitialEvents=true` a bookmark annotated
// k8s.io/initial-events-end follows the initial events.
// End: `timeoutSeconds` (real time; default ServerConfig::default_watch_timeout), server
// shutdown (prompt: waits are bounded and woken by ObjectStore::Shutdown), or the client
// closing its connection (noticed within about 250 ms).
//
// Thread-safety: Pump is called by one server worker at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "test/kubeapi/field_selector.h"
#include "test/kubeapi/http_types.h"
#include "test/kubeapi/label_selector.h"
#include "test/kubeapi/resource_request.h"
#include "test/kubeapi/server_context.h"

namespace credledger::kubeapi {

// How long before a stream's timeout its last bookmark is sent.
inline constexpr absl::Duration kFinalBookmarkLead = absl::Seconds(2);

class WatchStream : public StreamBody {
 public:
  // Validates the watch parameters of `req` and takes the start position.
  // Errors: BadRequest (400) for an unparsable resourceVersion, timeoutSeconds or selector.
  // REQUIRES: `ctx` outlives the stream.
  static absl::StatusOr<std::shared_ptr<WatchStream>> Open(ServerContext& ctx,
                                                           const ResourceRequest& req);

  Step Pump(const std::function<bool(absl::string_view)>& write) override;

 private:
  WatchStream(ServerContext& ctx, const ResourceRequest& req);

  // Appends the synthetic ADDED events of a fresh watch to pending_.
  void QueueInitialEvents(bool send_initial_end_bookmark);
  // Writes every new event after cursor_; false when the client is gone.
  bool SendEvents(const std::function<bool(absl::string_view)>& write, bool* expired);
  // The served JSON line of an event.
  std::string Line(const char* type, const nlohmann::json& object) const;
  std::string BookmarkLine(bool initial_events_end) const;
  std::string ExpiredLine(int64_t requested, int64_t oldest) const;
  bool Selected(const nlohmann::json& object) const;

  ServerContext& ctx_;
  const ResourceInfo resource_;
  const std::string version_;
  const std::string namespace_;  // "" = every namespace
  const int socket_fd_;
  LabelSelector labels_;
  FieldSelector fields_;
  bool bookmarks_ = false;
  int64_t cursor_ = 0;
  uint64_t bookmark_generation_ = 0;
  absl::Time deadline_;
  absl::Time next_bookmark_;
  bool final_bookmark_sent_ = false;
  std::vector<std::string> pending_;
  bool finish_after_pending_ = false;
};

}  // namespace credledger::kubeapi
