#include "kubebridge/client/watch.h"

#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/status_mapping.h"

namespace credledger::kubebridge {
namespace {

// Marks a handler's error so the loop can tell it from the client's errors.
class HandlerError {
 public:
  absl::Status Record(absl::Status status) {
    if (!status.ok()) status_ = status;
    return status;
  }
  const std::optional<absl::Status>& status() const { return status_; }

 private:
  std::optional<absl::Status> status_;
};

class ListWatchLoop {
 public:
  ListWatchLoop(KubeClient& client, const ResourceRef& collection, const ListWatchOptions& options,
                WatchHandler& handler, Cancellation& cancel)
      : client_(client),
        collection_(collection),
        options_(options),
        handler_(handler),
        cancel_(cancel) {}

  absl::Status Run() {
    bool need_list = true;
    while (!cancel_.cancelled()) {
      absl::Status status = need_list ? List() : Watch();
      if (handler_error_.status().has_value()) return *handler_error_.status();
      if (cancel_.cancelled()) break;
      if (status.ok()) {
        need_list = false;
        continue;
      }
      if (IsResourceExpired(status)) {
        need_list = true;  // re-list at once, like client-go's reflector
        continue;
      }
      handler_.OnError(status);
      // After a lost connection the last version is still good; otherwise list again.
      need_list = need_list || !absl::IsUnavailable(status);
      if (!Backoff()) break;
    }
    return absl::CancelledError(absl::StrCat("watch of ", collection_.DebugString(), ": stopped"));
  }

 private:
  absl::Status List() {
    ListOptions list_options{.label_selector = options_.label_selector,
                             .field_selector = options_.field_selector,
                             .page_size = options_.page_size};
    absl::StatusOr<ObjectList> list = client_.List(collection_, list_options, &cancel_);
    if (!list.ok()) return list.status();
    resource_version_ = list->resource_version;
    failures_ = 0;
    return handler_error_.Record(handler_.OnSync(list->items, list->resource_version));
  }

  absl::Status Watch() {
    WatchOptions watch_options{.label_selector = options_.label_selector,
                               .field_selector = options_.field_selector,
                               .resource_version = resource_version_,
                               .timeout = options_.watch_timeout};
    int events = 0;
    absl::Status status = client_.WatchOnce(
        collection_, watch_options,
        [&](const WatchEvent& event) -> absl::Status {
          ++events;
          std::string version = StringAt(event.object, {"metadata", "resourceVersion"});
          if (!version.empty()) resource_version_ = std::move(version);
          return handler_error_.Record(handler_.OnEvent(event));
        },
        &cancel_);
    if (events > 0) {
      failures_ = 0;
      quiet_streams_ = 0;
    } else if (status.ok() && ++quiet_streams_ > 1 && !Backoff()) {
      // Streams that keep ending without a single event (not even a bookmark) are paced by
      // the backoff instead of being reopened in a tight loop.
      return absl::CancelledError("stopped");
    }
    return status;
  }

  // Waits before the next attempt; false when cancelled.
  bool Backoff() {
    absl::Duration delay =
        BackoffDelay(options_.backoff, failures_++, absl::Uniform(random_, 0.0, 1.0));
    return cancel_.SleepFor(client_.clock(), delay);
  }

  KubeClient& client_;
  const ResourceRef& collection_;
  const ListWatchOptions& options_;
  WatchHandler& handler_;
  Cancellation& cancel_;
  HandlerError handler_error_;
  std::string resource_version_;
  int failures_ = 0;
  int quiet_streams_ = 0;
  absl::BitGen random_;
};

}  // namespace

absl::Status RunListWatch(KubeClient& client, const ResourceRef& collection,
                          const ListWatchOptions& options, WatchHandler& handler,
                          Cancellation* cancel) {
  LinkedCancellation linked(client.stop_cancellation(), cancel);
  return ListWatchLoop(client, collection, options, handler, linked.get()).Run();
}

}  // namespace credledger::kubebridge
