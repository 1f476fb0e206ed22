#include "test/kubeapi/watch_stream.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/object_rules.h"

namespace credledger::kubeapi {
namespace {

constexpr absl::Duration kPollInterval = absl::Milliseconds(250);
constexpr size_t kBatchSize = 256;

bool IsTrue(const std::string& v) { return v == "true" || v == "1"; }

}  // namespace

WatchStream::WatchStream(ServerContext& ctx, const ResourceRequest& req)
    : ctx_(ctx),
      resource_(req.resource),
      version_(req.info.version),
      namespace_(req.StoreNamespace()),
      socket_fd_(req.http->socket_fd) {}

absl::StatusOr<std::shared_ptr<WatchStream>> WatchStream::Open(ServerContext& ctx,
                                                               const ResourceRequest& req) {
  const auto& params = req.http->params;
  std::shared_ptr<WatchStream> w(new WatchStream(ctx, req));
  ASSIGN_OR_RETURN(w->labels_, LabelSelector::Parse(QueryParam(params, "labelSelector")));
  ASSIGN_OR_RETURN(w->fields_, FieldSelector::Parse(QueryParam(params, "fieldSelector")));
  w->bookmarks_ = IsTrue(QueryParam(params, "allowWatchBookmarks"));
  absl::Duration timeout = ctx.config.default_watch_timeout;
  std::string timeout_text = QueryParam(params, "timeoutSeconds");
  if (!timeout_text.empty()) {
    int64_t seconds = 0;
    if (!absl::SimpleAtoi(timeout_text, &seconds) || seconds < 0) {
      return BadRequestError(absl::StrCat("invalid timeoutSeconds \"", timeout_text, "\""));
    }
    if (seconds > 0) timeout = absl::Seconds(seconds);
  }
  absl::Time now = absl::Now();
  w->deadline_ = now + timeout;
  w->next_bookmark_ =
      std::min(now + ctx.config.bookmark_interval, w->deadline_ - kFinalBookmarkLead);
  w->bookmark_generation_ = ctx.store.BookmarkGeneration();

  std::string rv_text = QueryParam(params, "resourceVersion");
  if (rv_text.empty() || rv_text == "0") {
    w->QueueInitialEvents(IsTrue(QueryParam(params, "sendInitialEvents")) && w->bookmarks_);
    return w;
  }
  int64_t rv = 0;
  if (!absl::SimpleAtoi(rv_text, &rv) || rv < 0) {
    return BadRequestError(absl::StrCat("invalid resourceVersion \"", rv_text, "\""));
  }
  w->cursor_ = rv;
  EventBatch probe = ctx.store.EventsAfter(rv, 0);
  if (probe.expired) {
    w->pending_.push_back(w->ExpiredLine(rv, probe.oldest_resumable));
    w->finish_after_pending_ = true;
  }
  return w;
}

void WatchStream::QueueInitialEvents(bool send_initial_end_bookmark) {
  ListSnapshot snapshot = ctx_.store.List(resource_.gr(), namespace_);
  cursor_ = snapshot.resource_version;
  for (const ObjectPtr& item : snapshot.items) {
    if (Selected(*item)) pending_.push_back(Line("ADDED", *item));
  }
  if (send_initial_end_bookmark) pending_.push_back(BookmarkLine(true));
}

bool WatchStream::Selected(const nlohmann::json& object) const {
  return labels_.Matches(Field(Metadata(object), "labels")) && fields_.Matches(object);
}

std::string WatchStream::Line(const char* type, const nlohmann::json& object) const {
  nlohmann::json event = {{"type", type}, {"object", ForVersion(resource_, version_, object)}};
  return event.dump() + "\n";
}

std::string WatchStream::BookmarkLine(bool initial_events_end) const {
  nlohmann::json meta = {{"resourceVersion", absl::StrCat(cursor_)}};
  if (initial_events_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  nlohmann::json object = {{"kind", resource_.kind},
                           {"apiVersion", resource_.ApiVersion(version_)},
                           {"metadata", meta}};
  return nlohmann::json({{"type", "BOOKMARK"}, {"object", object}}).dump() + "\n";
}

std::string WatchStream::ExpiredLine(int64_t requested, int64_t oldest) const {
  StatusReply reply = StatusToReply(ExpiredError(
      absl::StrCat("too old resource version: ", requested, " (", oldest, ")")));
  return nlohmann::json({{"type", "ERROR"}, {"object", reply.body}}).dump() + "\n";
}

bool WatchStream::SendEvents(const std::function<bool(absl::string_view)>& write,
                             bool* expired) {
  EventBatch batch = ctx_.store.EventsAfter(cursor_, kBatchSize);
  if (batch.expired) {
    *expired = true;
    return write(ExpiredLine(cursor_, batch.oldest_resumable));
  }
  for (const StoreEvent& e : batch.events) {
    cursor_ = e.resource_version;
    if (!(e.gr == resource_.gr()) || (!namespace_.empty() && e.namespace_name != namespace_)) {
      continue;
    }
    bool now_selected = Selected(*e.object);
    bool was_selected = e.previous != nullptr && Selected(*e.previous);
    const char* type = nullptr;
    switch (e.type) {
      case StoreEventType::kAdded:
        if (now_selected) type = "ADDED";
        break;
      case StoreEventType::kModified:
        if (now_selected) type = was_selected ? "MODIFIED" : "ADDED";
        else if (was_selected) type = "DELETED";
        break;
      case StoreEventType::kDeleted:
        if (now_selected) type = "DELETED";
        break;
    }
    if (type != nullptr && !write(Line(type, *e.object))) return false;
  }
  return true;
}

StreamBody::Step WatchStream::Pump(const std::function<bool(absl::string_view)>& write) {
  if (!pending_.empty()) {
    for (const std::string& line : pending_) {
      if (!write(line)) return Step::kClientGone;
    }
    pending_.clear();
    return finish_after_pending_ ? Step::kDone : Step::kContinue;
  }
  absl::Time now = absl::Now();
  if (now >= deadline_ || ctx_.store.IsShutDown()) return Step::kDone;
  absl::Time wake = std::min(deadline_, now + kPollInterval);
  if (bookmarks_) wake = std::min(wake, next_bookmark_);
  ctx_.store.AwaitActivity(cursor_, bookmark_generation_, wake);
  if (ctx_.store.IsShutDown()) return Step::kDone;
  if (PeerClosed(socket_fd_)) return Step::kClientGone;
  bool expired = false;
  if (!SendEvents(write, &expired)) return Step::kClientGone;
  if (expired) return Step::kDone;
  uint64_t generation = ctx_.store.BookmarkGeneration();
  now = absl::Now();
  if (bookmarks_ && (generation != bookmark_generation_ || now >= next_bookmark_)) {
    if (!write(BookmarkLine(false))) return Step::kClientGone;
    if (now >= deadline_ - kFinalBookmarkLead) final_bookmark_sent_ = true;
    next_bookmark_ = now + ctx_.config.bookmark_interval;
    if (!final_bookmark_sent_) {
      next_bookmark_ = std::min(next_bookmark_, deadline_ - kFinalBookmarkLead);
    }
  }
  bookmark_generation_ = generation;
  return Step::kContinue;
}

}  // namespace credledger::kubeapi
