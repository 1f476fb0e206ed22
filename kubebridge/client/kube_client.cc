#include "kubebridge/client/kube_client.h"

#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/status_mapping.h"

namespace credledger::kubebridge {
namespace {

// Grace the client gives a watch beyond its server-side timeoutSeconds.
constexpr absl::Duration kWatchClientGrace = absl::Seconds(30);

HttpRequest MakeRequest(std::string method, std::string path, std::string body = "") {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  return request;
}

// Status.details.retryAfterSeconds of an error body, when present.
std::optional<absl::Duration> RetryAfterFromBody(absl::string_view body) {
  nlohmann::json parsed =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  auto details = parsed.find("details");
  if (details == parsed.end() || !details->is_object()) return std::nullopt;
  auto seconds = details->find("retryAfterSeconds");
  if (seconds == details->end() || !seconds->is_number_integer()) return std::nullopt;
  int64_t value = seconds->get<int64_t>();
  if (value <= 0) return std::nullopt;
  return absl::Seconds(value);
}

// Makes `object` carry metadata.name `name` (filled in when missing).
// Errors: kInvalidArgument when `object` is not an object or names another object.
absl::Status ReconcileName(nlohmann::json& object, const std::string& name,
                           absl::string_view operation) {
  if (!object.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(operation, ": the object is not a JSON object"));
  }
  std::string current = StringAt(object, {"metadata", "name"});
  if (name.empty()) return absl::OkStatus();
  if (current.empty()) {
    if (!object["metadata"].is_object()) object["metadata"] = nlohmann::json::object();
    object["metadata"]["name"] = name;
    return absl::OkStatus();
  }
  if (current != name) {
    return absl::InvalidArgumentError(absl::StrCat(operation, ": metadata.name \"", current,
                                                   "\" differs from the reference's \"", name,
                                                   "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line, absl::string_view label) {
  ASSIGN_OR_RETURN(nlohmann::json parsed, ParseJson(line, label));
  std::string type = StringAt(parsed, {"type"});
  auto object = parsed.is_object() ? parsed.find("object") : parsed.end();
  if (type.empty() || object == parsed.end()) {
    return absl::InternalError(absl::StrCat(label, ": watch event without type or object"));
  }
  if (type == "ERROR") {
    absl::Status status = StatusFromStatusObject(label, *object, 500);
    return status.ok() ? absl::InternalError(absl::StrCat(label, ": watch ERROR event")) : status;
  }
  WatchEvent event;
  if (type == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else {
    return absl::InternalError(absl::StrCat(label, ": unknown watch event type \"", type, "\""));
  }
  event.object = std::move(*object);
  return event;
}

}  // namespace

absl::StatusOr<std::unique_ptr<KubeClient>> KubeClient::New(ConnectionConfig config,
                                                            KubeClientOptions options) {
  std::string default_namespace = config.default_namespace;
  ASSIGN_OR_RETURN(std::unique_ptr<CurlTransport> transport,
                   CurlTransport::New(std::move(config), options.transport));
  return std::make_unique<KubeClient>(std::move(transport), std::move(options),
                                      std::move(default_namespace));
}

KubeClient::KubeClient(std::unique_ptr<HttpTransport> transport, KubeClientOptions options,
                       std::string default_namespace)
    : transport_(std::move(transport)),
      options_(std::move(options)),
      default_namespace_(std::move(default_namespace)),
      limiter_(options_.rate_limit, options_.clock) {}

KubeClient::~KubeClient() { Stop(); }

void KubeClient::Stop() { stop_.Cancel(); }

std::optional<absl::Time> KubeClient::server_date() const {
  absl::MutexLock lock(&date_mu_);
  return server_date_;
}

double KubeClient::RandomUnit() {
  absl::MutexLock lock(&random_mu_);
  return absl::Uniform(random_, 0.0, 1.0);
}

void KubeClient::Observe(absl::string_view verb, const absl::StatusOr<HttpResponse>& response,
                         bool streamed, const Cancellation& op) const {
  if (!options_.on_request) return;
  if (response.ok()) {
    options_.on_request(verb, response->status_code);
  } else if (streamed) {
    options_.on_request(verb, 200);
  } else if (!op.cancelled() && !absl::IsCancelled(response.status())) {
    options_.on_request(verb, 0);
  }
}

absl::StatusOr<HttpResponse> KubeClient::Execute(absl::string_view verb, HttpRequest request,
                                                 Cancellation* cancel) {
  std::string label = RequestLabel(request);
  request.timeout = options_.request_timeout;
  LinkedCancellation linked(stop_, cancel);
  Cancellation& op = linked.get();
  int attempts = std::max(1, options_.retry.max_attempts);
  for (int attempt = 0;; ++attempt) {
    if (!limiter_.Wait(op).ok()) return absl::CancelledError(absl::StrCat(label, ": cancelled"));
    absl::StatusOr<HttpResponse> response = transport_->RoundTrip(request, op, nullptr);
    Observe(verb, response, /*streamed=*/false, op);
    if (response.ok() && response->date.has_value()) {
      absl::MutexLock lock(&date_mu_);
      server_date_ = response->date;
    }
    absl::Status status = response.status();
    std::optional<absl::Duration> retry_after;
    if (response.ok()) {
      status = StatusFromHttpResponse(label, response->status_code, response->body);
      if (status.ok()) return response;
      retry_after = response->retry_after;
      if (!retry_after.has_value()) retry_after = RetryAfterFromBody(response->body);
    }
    if (!absl::IsUnavailable(status) || attempt + 1 >= attempts) return status;
    absl::Duration delay = RetryDelay(options_.retry, attempt, RandomUnit(), retry_after);
    if (!op.SleepFor(*options_.clock, delay)) {
      return absl::CancelledError(absl::StrCat(label, ": cancelled"));
    }
  }
}

absl::StatusOr<nlohmann::json> KubeClient::ExecuteJson(absl::string_view verb,
                                                       HttpRequest request,
                                                       Cancellation* cancel) {
  std::string label = RequestLabel(request);
  ASSIGN_OR_RETURN(HttpResponse response, Execute(verb, std::move(request), cancel));
  return ParseJson(response.body, label);
}

absl::StatusOr<nlohmann::json> KubeClient::Get(const ResourceRef& ref, Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string path, ObjectPath(ref));
  return ExecuteJson("get", MakeRequest("GET", std::move(path)), cancel);
}

absl::StatusOr<nlohmann::json> KubeClient::Create(const ResourceRef& ref,
                                                  const nlohmann::json& object,
                                                  Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string path, CollectionPath(ref));
  nlohmann::json body = object;
  RETURN_IF_ERROR(ReconcileName(body, ref.name, absl::StrCat("POST ", path)));
  ASSIGN_OR_RETURN(std::string text, SerializeJson(body));
  return ExecuteJson("create", MakeRequest("POST", std::move(path), std::move(text)), cancel);
}

absl::StatusOr<nlohmann::json> KubeClient::Update(const ResourceRef& ref,
                                                  const nlohmann::json& object,
                                                  Cancellation* cancel) {
  ResourceRef target = ref;
  if (target.name.empty()) target.name = StringAt(object, {"metadata", "name"});
  ASSIGN_OR_RETURN(std::string path, ObjectPath(target));
  std::string label = absl::StrCat("PUT ", path);
  nlohmann::json body = object;
  RETURN_IF_ERROR(ReconcileName(body, target.name, label));
  if (StringAt(body, {"metadata", "resourceVersion"}).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": metadata.resourceVersion is required for an update"));
  }
  ASSIGN_OR_RETURN(std::string text, SerializeJson(body));
  return ExecuteJson("update", MakeRequest("PUT", std::move(path), std::move(text)), cancel);
}

absl::StatusOr<AppliedObject> KubeClient::Apply(const ResourceRef& ref,
                                                const nlohmann::json& configuration,
                                                const ApplyOptions& options, Cancellation* cancel) {
  ResourceRef target = ref;
  if (target.name.empty()) target.name = StringAt(configuration, {"metadata", "name"});
  ASSIGN_OR_RETURN(std::string path, ObjectPath(target));
  std::string label = absl::StrCat("PATCH ", path);
  if (options.field_manager.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": an apply needs a field manager"));
  }
  nlohmann::json body = configuration;
  RETURN_IF_ERROR(ReconcileName(body, target.name, label));
  ASSIGN_OR_RETURN(std::string text, SerializeJson(body));
  std::string query =
      BuildQuery({{"fieldManager", options.field_manager}, {"force", options.force ? "true" : ""}});
  HttpRequest request = MakeRequest("PATCH", path + query, std::move(text));
  request.content_type = "application/apply-patch+yaml";
  ASSIGN_OR_RETURN(HttpResponse response, Execute("patch", std::move(request), cancel));
  ASSIGN_OR_RETURN(nlohmann::json object, ParseJson(response.body, label));
  return AppliedObject{std::move(object), response.status_code == 201};
}

absl::Status KubeClient::Delete(const ResourceRef& ref, const DeleteOptions& options,
                                Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string path, ObjectPath(ref));
  nlohmann::json body = nlohmann::json::object();
  if (!options.precondition_uid.empty()) {
    body["preconditions"]["uid"] = options.precondition_uid;
  }
  if (!options.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = options.precondition_resource_version;
  }
  if (!options.propagation_policy.empty()) {
    body["propagationPolicy"] = options.propagation_policy;
  }
  std::string text;
  if (!body.empty()) {
    body["apiVersion"] = "v1";
    body["kind"] = "DeleteOptions";
    ASSIGN_OR_RETURN(text, SerializeJson(body));
  }
  return Execute("delete", MakeRequest("DELETE", std::move(path), std::move(text)), cancel)
      .status();
}

absl::StatusOr<ObjectList> KubeClient::List(const ResourceRef& ref, const ListOptions& options,
                                            Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string collection, CollectionPath(ref));
  ObjectList result;
  std::string continue_token;
  do {
    std::string query = BuildQuery({
        {"labelSelector", options.label_selector},
        {"fieldSelector", options.field_selector},
        {"limit", options.page_size > 0 ? absl::StrCat(options.page_size) : ""},
        {"continue", continue_token},
    });
    ASSIGN_OR_RETURN(nlohmann::json page,
                     ExecuteJson("list", MakeRequest("GET", collection + query), cancel));
    auto items = page.is_object() ? page.find("items") : page.end();
    if (items != page.end() && items->is_array()) {
      for (nlohmann::json& item : *items) result.items.push_back(std::move(item));
    } else if (items != page.end() && !items->is_null()) {
      return absl::InternalError(absl::StrCat("GET ", collection, ": items is not a list"));
    }
    if (result.resource_version.empty()) {
      result.resource_version = StringAt(page, {"metadata", "resourceVersion"});
    }
    continue_token = StringAt(page, {"metadata", "continue"});
  } while (!continue_token.empty() && options.page_size > 0);
  return result;
}

absl::StatusOr<nlohmann::json> KubeClient::CreateSubresource(const ResourceRef& ref,
                                                             absl::string_view subresource,
                                                             const nlohmann::json& body,
                                                             Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string path, SubresourcePath(ref, subresource));
  ASSIGN_OR_RETURN(std::string text, SerializeJson(body));
  return ExecuteJson("create", MakeRequest("POST", std::move(path), std::move(text)), cancel);
}

absl::StatusOr<std::string> KubeClient::RawGet(absl::string_view path, Cancellation* cancel) {
  if (!absl::StartsWith(path, "/")) {
    return absl::InvalidArgumentError(absl::StrCat("GET ", path, ": the path must start with /"));
  }
  ASSIGN_OR_RETURN(HttpResponse response,
                   Execute("get", MakeRequest("GET", std::string(path)), cancel));
  return std::move(response.body);
}

absl::Status KubeClient::WatchOnce(const ResourceRef& ref, const WatchOptions& options,
                                   const WatchEventCallback& on_event, Cancellation* cancel) {
  ASSIGN_OR_RETURN(std::string collection, CollectionPath(ref));
  int64_t timeout_seconds = std::max<int64_t>(1, absl::ToInt64Seconds(options.timeout));
  std::string query = BuildQuery({
      {"watch", "true"},
      {"allowWatchBookmarks", options.allow_bookmarks ? "true" : ""},
      {"resourceVersion", options.resource_version},
      {"timeoutSeconds", absl::StrCat(timeout_seconds)},
      {"labelSelector", options.label_selector},
      {"fieldSelector", options.field_selector},
  });
  HttpRequest request = MakeRequest("GET", collection + query);
  request.stream = true;
  request.timeout = absl::Seconds(timeout_seconds) + kWatchClientGrace;
  std::string label = RequestLabel(request);
  LinkedCancellation linked(stop_, cancel);
  Cancellation& op = linked.get();
  if (!limiter_.Wait(op).ok()) return absl::CancelledError(absl::StrCat(label, ": cancelled"));
  bool streamed = false;
  LineHandler on_line = [&](absl::string_view line) -> absl::Status {
    streamed = true;
    ASSIGN_OR_RETURN(WatchEvent event, ParseWatchEvent(line, label));
    return on_event(event);
  };
  absl::StatusOr<HttpResponse> response = transport_->RoundTrip(request, op, &on_line);
  Observe("watch", response, streamed, op);
  if (!response.ok()) return response.status();
  return StatusFromHttpResponse(label, response->status_code, response->body);
}

}  // namespace credledger::kubebridge
