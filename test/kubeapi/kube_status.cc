#include "test/kubeapi/kube_status.h"

#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace credledger::kubeapi {
namespace {

constexpr absl::string_view kPayloadUrl = "credledger.kubeapi/status";

absl::StatusCode CanonicalCodeFor(int http_code) {
  switch (http_code) {
    case 400: return absl::StatusCode::kInvalidArgument;
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 405: return absl::StatusCode::kUnimplemented;
    case 409: return absl::StatusCode::kAborted;
    case 410: return absl::StatusCode::kOutOfRange;
    case 415: return absl::StatusCode::kInvalidArgument;
    case 422: return absl::StatusCode::kInvalidArgument;
    case 429: return absl::StatusCode::kResourceExhausted;
    case 503: return absl::StatusCode::kUnavailable;
    case 504: return absl::StatusCode::kDeadlineExceeded;
    default: return absl::StatusCode::kInternal;
  }
}

nlohmann::json Details(const GroupResource& gr, absl::string_view name) {
  nlohmann::json d = nlohmann::json::object();
  if (!name.empty()) d["name"] = name;
  if (!gr.group.empty()) d["group"] = gr.group;
  d["kind"] = gr.resource;
  return d;
}

nlohmann::json Body(int code, absl::string_view reason, absl::string_view message,
                    const nlohmann::json& details) {
  nlohmann::json body = {{"kind", "Status"},   {"apiVersion", "v1"},
                         {"metadata", nlohmann::json::object()},
                         {"status", "Failure"}, {"message", message},
                         {"reason", reason},    {"code", code}};
  if (!details.is_null()) body["details"] = details;
  return body;
}

// Status bodies for statuses that carry no payload, by canonical code.
StatusReply GenericReply(const absl::Status& status) {
  std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kNotFound: return {404, Body(404, "NotFound", message, nullptr)};
    case absl::StatusCode::kAlreadyExists:
      return {409, Body(409, "AlreadyExists", message, nullptr)};
    case absl::StatusCode::kAborted: return {409, Body(409, "Conflict", message, nullptr)};
    case absl::StatusCode::kInvalidArgument:
      return {400, Body(400, "BadRequest", message, nullptr)};
    case absl::StatusCode::kUnauthenticated:
      return {401, Body(401, "Unauthorized", "Unauthorized", nullptr)};
    case absl::StatusCode::kPermissionDenied:
      return {403, Body(403, "Forbidden", message, nullptr)};
    case absl::StatusCode::kUnavailable:
      return {503, Body(503, "ServiceUnavailable", message, nullptr)};
    default: return {500, Body(500, "InternalError", message, nullptr)};
  }
}

}  // namespace

absl::Status KubeStatusError(int code, absl::string_view reason, absl::string_view message,
                             const nlohmann::json& details) {
  absl::Status status(CanonicalCodeFor(code), message);
  status.SetPayload(kPayloadUrl, absl::Cord(Body(code, reason, message, details).dump()));
  return status;
}

absl::Status NotFoundError(const GroupResource& gr, absl::string_view name) {
  std::string message = name.empty() ? absl::StrCat(gr.String(), " not found")
                                     : absl::StrCat(gr.String(), " \"", name, "\" not found");
  return KubeStatusError(404, "NotFound", message, Details(gr, name));
}

absl::Status PathNotFoundError() {
  return KubeStatusError(404, "NotFound", "the server could not find the requested resource",
                         nlohmann::json::object());
}

absl::Status AlreadyExistsError(const GroupResource& gr, absl::string_view name) {
  return KubeStatusError(409, "AlreadyExists",
                         absl::StrCat(gr.String(), " \"", name, "\" already exists"),
                         Details(gr, name));
}

absl::Status ConflictError(const GroupResource& gr, absl::string_view name,
                           absl::string_view cause) {
  return KubeStatusError(
      409, "Conflict",
      absl::StrCat("Operation cannot be fulfilled on ", gr.String(), " \"", name, "\": ", cause),
      Details(gr, name));
}

absl::Status InvalidError(absl::string_view kind, absl::string_view group, absl::string_view name,
                          const std::vector<FieldCause>& causes) {
  std::vector<std::string> parts;
  nlohmann::json cause_list = nlohmann::json::array();
  for (const FieldCause& c : causes) {
    parts.push_back(absl::StrCat(c.field, ": ", c.message));
    cause_list.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  std::string joined =
      parts.size() == 1 ? parts[0] : absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
  std::string qualified = group.empty() ? std::string(kind) : absl::StrCat(kind, ".", group);
  nlohmann::json details = nlohmann::json::object();
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  details["kind"] = kind;
  details["causes"] = cause_list;
  return KubeStatusError(422, "Invalid",
                         absl::StrCat(qualified, " \"", name, "\" is invalid: ", joined),
                         details);
}

absl::Status ForbiddenError(const GroupResource& gr, absl::string_view name,
                            absl::string_view message) {
  return KubeStatusError(403, "Forbidden", message, Details(gr, name));
}

absl::Status UnauthorizedError() {
  return KubeStatusError(401, "Unauthorized", "Unauthorized", nullptr);
}

absl::Status BadRequestError(absl::string_view message) {
  return KubeStatusError(400, "BadRequest", message, nullptr);
}

absl::Status MethodNotAllowedError() {
  return KubeStatusError(405, "MethodNotAllowed",
                         "the server does not allow this method on the requested resource",
                         nlohmann::json::object());
}

absl::Status UnsupportedMediaTypeError(absl::string_view content_type) {
  return KubeStatusError(415, "UnsupportedMediaType",
                         absl::StrCat("the body of the request was in an unknown format - "
                                      "accepted media types include: application/json, "
                                      "application/merge-patch+json, "
                                      "application/strategic-merge-patch+json, "
                                      "application/json-patch+json, "
                                      "application/apply-patch+yaml (got \"",
                                      content_type, "\")"),
                         nullptr);
}

absl::Status ExpiredError(absl::string_view message) {
  return KubeStatusError(410, "Expired", message, nullptr);
}

StatusReply StatusToReply(const absl::Status& status) {
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload) return GenericReply(status);
  nlohmann::json body = nlohmann::json::parse(std::string(*payload), nullptr, false);
  if (!body.is_object()) return GenericReply(status);
  return {body.value("code", 500), body};
}

nlohmann::json SuccessStatus(const GroupResource& gr, absl::string_view name,
                             absl::string_view uid) {
  nlohmann::json details = Details(gr, name);
  details["uid"] = uid;
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", nlohmann::json::object()},
          {"status", "Success"},
          {"details", details}};
}

}  // namespace credledger::kubeapi
