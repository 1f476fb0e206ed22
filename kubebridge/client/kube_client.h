// KubeClient: a generic Kubernetes REST client (docs/design.md, "Client").
//
// Operations take a ResourceRef and JSON objects (nlohmann::json) and return absl::Status
// mapped from Kubernetes Status responses (status_mapping.h; HTTP 410 is kOutOfRange).
// Every request first takes a token from the client-side rate limiter (QPS/burst, default
// 5/10) and is retried with exponential backoff when, and only when, it fails with
// kUnavailable (429, 5xx, timeouts, connection errors), honouring Retry-After, up to
// options.retry.max_attempts attempts in total. Watch requests (WatchOnce) are rate limited
// but not retried: ListWatch (watch.h) owns that loop.
//
// Stop() (also run by the destructor) cancels every running and future operation: blocked
// transfers, watch streams, rate-limit and backoff waits end promptly with kCancelled. Each
// operation also accepts an optional caller Cancellation with the same effect on that call.
//
// Messages start with "<METHOD> <path>" and keep the server's reason and message. They never
// contain the bearer token, and no response body of a successful request.
//
// Thread-safety: all methods may be called concurrently.
// REQUIRES: no call is running when the client is destroyed (Stop() first, then join).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/client/backoff.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/curl_transport.h"
#include "kubebridge/client/http_transport.h"
#include "kubebridge/client/rate_limiter.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Told about one ended request attempt (metrics): the Kubernetes verb ("get", "list",
// "watch", "create", "update", "patch" or "delete") and the HTTP status code, or 0 when no
// response came (connection failure, timeout, a body over the limit).
using KubeRequestObserver = std::function<void(absl::string_view verb, int status_code)>;

struct KubeClientOptions {
  RateLimit rate_limit;
  // Retry schedule for kUnavailable.
  BackoffPolicy retry;
  // Limit of one non-watch request attempt.
  absl::Duration request_timeout = absl::Seconds(30);
  // Time source of the rate limiter and backoff waits. REQUIRES: outlives the client.
  common::Clock* clock = common::RealClock::Default();
  // Used by New() only.
  CurlTransportOptions transport;
  // Called once per request attempt (retries and list pages each count; a watch when its
  // stream ends, with its 2xx status once lines arrived), on the calling thread; attempts
  // cut short by Stop or a caller's Cancellation are not reported. Must be thread-safe and
  // must not block. Unset: nothing is reported (docs/operations.md, "Metrics and health").
  KubeRequestObserver on_request;
};

struct ListOptions {
  std::string label_selector{};  // e.g. "app=x,tier!=db"; empty = all
  std::string field_selector{};  // e.g. "metadata.name=x"; empty = all
  // Objects per page (the `limit` parameter); 0 asks for everything at once. Pages are
  // followed transparently.
  int64_t page_size = 0;
};

// A list result: the objects and the list's resourceVersion (the point to watch from).
struct ObjectList {
  std::vector<nlohmann::json> items;
  std::string resource_version;
};

struct DeleteOptions {
  // Delete only if the live object still has this uid / resourceVersion (else kAborted).
  std::string precondition_uid{};
  std::string precondition_resource_version{};
  // "Orphan", "Background" or "Foreground"; empty = the server's default.
  std::string propagation_policy{};
};

struct WatchOptions {
  std::string label_selector{};
  std::string field_selector{};
  // Watch changes after this resourceVersion (from a list or the last event).
  std::string resource_version{};
  // Server-side stream length (timeoutSeconds); the client gives up 30 s after it.
  absl::Duration timeout = absl::Minutes(5);
  // Ask for BOOKMARK events (allowWatchBookmarks).
  bool allow_bookmarks = true;
};

// A server-side apply (docs/kubernetes.md, "Objects per Target").
struct ApplyOptions {
  // The manager that owns the applied fields (the fieldManager parameter); required.
  std::string field_manager{};
  // Take fields that other managers own instead of failing with a conflict.
  bool force = false;
};

// The outcome of an apply: the object as the server holds it afterwards, and whether the
// apply created it (the server answered 201).
struct AppliedObject {
  nlohmann::json object;
  bool created = false;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark };

struct WatchEvent {
  WatchEventType type;
  // The object after the change (for kDeleted: its last state; for kBookmark: an object
  // whose metadata.resourceVersion is the bookmark).
  nlohmann::json object;
};

// Receives each event of a watch; an error ends the watch with that error.
using WatchEventCallback = std::function<absl::Status(const WatchEvent& event)>;

class KubeClient {
 public:
  // A client over libcurl for `config`.
  // Errors: as CurlTransport::New.
  static absl::StatusOr<std::unique_ptr<KubeClient>> New(ConnectionConfig config,
                                                         KubeClientOptions options = {});
  // A client over `transport` (tests inject fakes). `default_namespace` is reported by
  // default_namespace().
  KubeClient(std::unique_ptr<HttpTransport> transport, KubeClientOptions options,
             std::string default_namespace = "");
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  // GET the object `ref` (name required). Returns the object.
  absl::StatusOr<nlohmann::json> Get(const ResourceRef& ref, Cancellation* cancel = nullptr);

  // POST `object` into the collection of `ref`. When ref.name is set it must equal
  // metadata.name (which is filled in when missing). Returns the created object.
  // Errors: kInvalidArgument for a name mismatch or non-object; kAlreadyExists; mapped errors.
  absl::StatusOr<nlohmann::json> Create(const ResourceRef& ref, const nlohmann::json& object,
                                        Cancellation* cancel = nullptr);

  // PUT `object` to the object `ref` (name from ref.name or metadata.name). The object must
  // carry metadata.resourceVersion (optimistic concurrency). Returns the updated object.
  // Errors: kInvalidArgument without a resourceVersion or name; kAborted when the object
  // changed since that resourceVersion (Conflict); kNotFound; mapped errors.
  absl::StatusOr<nlohmann::json> Update(const ResourceRef& ref, const nlohmann::json& object,
                                        Cancellation* cancel = nullptr);

  // PATCH `configuration` to the object `ref` (name from ref.name or metadata.name) as a
  // server-side apply: Content-Type application/apply-patch+yaml with the configuration
  // written as JSON, fieldManager and force from `options`. The configuration holds only the
  // fields the manager owns; the server merges it into the object, or creates the object
  // when there is none.
  // Errors: kInvalidArgument without a field manager or name, for a non-object or a name
  // mismatch; kAborted when another manager owns a field the configuration changes and
  // force is off (Conflict); mapped errors.
  absl::StatusOr<AppliedObject> Apply(const ResourceRef& ref, const nlohmann::json& configuration,
                                      const ApplyOptions& options, Cancellation* cancel = nullptr);

  // DELETE the object `ref`, with optional preconditions and propagation policy.
  // Errors: kNotFound when it does not exist (callers may treat that as done); kAborted
  // when a precondition fails; mapped errors.
  absl::Status Delete(const ResourceRef& ref, const DeleteOptions& options = {},
                      Cancellation* cancel = nullptr);

  // LIST the collection of `ref` (namespace empty = all namespaces for namespaced kinds).
  // Errors: kOutOfRange when a continue token expired mid-way (list again); mapped errors.
  absl::StatusOr<ObjectList> List(const ResourceRef& ref, const ListOptions& options = {},
                                  Cancellation* cancel = nullptr);

  // POST `body` to subresource `subresource` of the object `ref`, e.g. a TokenRequest to
  // serviceaccounts/<name>/token. Returns the response object (which may hold secrets).
  absl::StatusOr<nlohmann::json> CreateSubresource(const ResourceRef& ref,
                                                   absl::string_view subresource,
                                                   const nlohmann::json& body,
                                                   Cancellation* cancel = nullptr);

  // GET an arbitrary absolute `path` (e.g. "/version"). Returns the raw body.
  // Errors: kInvalidArgument when `path` does not start with "/"; mapped errors.
  absl::StatusOr<std::string> RawGet(absl::string_view path, Cancellation* cancel = nullptr);

  // Opens one watch on the collection of `ref` and passes each event to `on_event` until the
  // stream ends. Returns OK when the server ended the stream normally (watch again from
  // the last resourceVersion seen).
  // Errors: kOutOfRange when the resourceVersion expired (HTTP 410 or an ERROR event with
  // code 410: list again); the mapped error of other ERROR events or HTTP errors;
  // kInternal for an undecodable event; kCancelled; whatever `on_event` returned.
  absl::Status WatchOnce(const ResourceRef& ref, const WatchOptions& options,
                         const WatchEventCallback& on_event, Cancellation* cancel = nullptr);

  // Cancels all running and future operations of this client. Idempotent.
  void Stop();
  bool stopped() const { return stop_.cancelled(); }
  // The Cancellation that Stop() fires; loops such as ListWatch link to it.
  Cancellation& stop_cancellation() { return stop_; }

  // The API server's clock as the Date header of the last response to a request other than a
  // watch (any status, retries included) gave it, in whole seconds; nullopt before the first
  // response with one. Lets a caller compare its own clock with the server's.
  std::optional<absl::Time> server_date() const;

  // The namespace of the connection (kubeconfig context or service account), may be "".
  const std::string& default_namespace() const { return default_namespace_; }
  common::Clock& clock() const { return *options_.clock; }
  const KubeClientOptions& options() const { return options_; }

 private:
  // Sends `request` (Kubernetes verb `verb`) with rate limiting and retries; returns the
  // 2xx response.
  absl::StatusOr<HttpResponse> Execute(absl::string_view verb, HttpRequest request,
                                       Cancellation* cancel);
  absl::StatusOr<nlohmann::json> ExecuteJson(absl::string_view verb, HttpRequest request,
                                             Cancellation* cancel);
  // Tells options_.on_request about one attempt: its status code, 200 for a stream that
  // delivered lines before it failed, 0 for a transport failure; nothing when cancelled.
  void Observe(absl::string_view verb, const absl::StatusOr<HttpResponse>& response,
               bool streamed, const Cancellation& op) const;
  double RandomUnit();

  std::unique_ptr<HttpTransport> transport_;
  const KubeClientOptions options_;
  const std::string default_namespace_;
  RateLimiter limiter_;
  Cancellation stop_;
  absl::Mutex random_mu_;
  absl::BitGen random_ ABSL_GUARDED_BY(random_mu_);
  mutable absl::Mutex date_mu_;
  std::optional<absl::Time> server_date_ ABSL_GUARDED_BY(date_mu_);
};

}  // namespace credledger::kubebridge
