// Kubernetes `Status` error bodies carried inside absl::Status.
//
// Every error a request handler returns is an absl::Status. The builders below attach the
// exact Kubernetes Status body (kind Status, apiVersion v1, status Failure, message, reason,
// details, code) as a payload, with messages in kube-apiserver's wording, e.g.
//   secrets "x" not found
//   secrets "x" already exists
//   Operation cannot be fulfilled on secrets "x": the object has been modified; please
//     apply your changes to the latest version and try again
//   Secret "Bad" is invalid: metadata.name: Invalid value: "Bad": ...
// `details.group` is omitted for the core group, as Go's omitempty does.
// StatusToReply turns any absl::Status (with or without a payload) into an HTTP code and
// Status body; statuses without a payload map by canonical code.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/group_resource.h"

namespace credledger::kubeapi {

// The tail of the Conflict message for a stale metadata.resourceVersion.
inline constexpr absl::string_view kObjectModifiedMessage =
    "the object has been modified; please apply your changes to the latest version and try "
    "again";

// One field error of an Invalid (422) Status: `reason` is FieldValueInvalid,
// FieldValueRequired, FieldValueForbidden or FieldValueNotSupported; `message` is the part
// after the field name ("Invalid value: 599: may not specify ...").
struct FieldCause {
  std::string reason;
  std::string field;
  std::string message;
};

// An error status carrying a Status body with `code` (HTTP status), `reason`, `message`
// and `details` (omitted when null).
absl::Status KubeStatusError(int code, absl::string_view reason, absl::string_view message,
                             const nlohmann::json& details);

// 404 NotFound: `<gr> "<name>" not found`.
absl::Status NotFoundError(const GroupResource& gr, absl::string_view name);
// 404 NotFound for a path the server does not serve:
// "the server could not find the requested resource".
absl::Status PathNotFoundError();
// 409 AlreadyExists: `<gr> "<name>" already exists`.
absl::Status AlreadyExistsError(const GroupResource& gr, absl::string_view name);
// 409 Conflict: `Operation cannot be fulfilled on <gr> "<name>": <cause>`.
absl::Status ConflictError(const GroupResource& gr, absl::string_view name,
                           absl::string_view cause);
// 422 Invalid: `<qualified_kind> "<name>" is invalid: <field>: <message>` (several causes
// are joined as "[a, b]"). `qualified_kind` is "Secret" or "Target.solar.opendefense.cloud";
// details.kind is the bare kind. REQUIRES: !causes.empty().
absl::Status InvalidError(absl::string_view kind, absl::string_view group, absl::string_view name,
                          const std::vector<FieldCause>& causes);
// 403 Forbidden with a message composed by the authorizer; details name/group/kind=resource.
absl::Status ForbiddenError(const GroupResource& gr, absl::string_view name,
                            absl::string_view message);
// 401 Unauthorized: message "Unauthorized", no details.
absl::Status UnauthorizedError();
// 400 BadRequest with `message`, no details.
absl::Status BadRequestError(absl::string_view message);
// 405 MethodNotAllowed: "the server does not allow this method on the requested resource".
absl::Status MethodNotAllowedError();
// 415 UnsupportedMediaType naming `content_type`.
absl::Status UnsupportedMediaTypeError(absl::string_view content_type);
// 410 Expired with `message` ("too old resource version: 5 (10)").
absl::Status ExpiredError(absl::string_view message);

// The HTTP status code and Status body for `status` (which must not be OK).
struct StatusReply {
  int code;
  nlohmann::json body;
};
StatusReply StatusToReply(const absl::Status& status);

// The body of a successful deletion of a built-in object:
// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{...}}.
nlohmann::json SuccessStatus(const GroupResource& gr, absl::string_view name,
                             absl::string_view uid);

}  // namespace credledger::kubeapi
