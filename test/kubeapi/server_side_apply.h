// Server-side apply in the test API server (docs/testing.md, "Server-side apply"): a PATCH
// with Content-Type application/apply-patch+yaml whose body, the apply configuration,
// holds only the fields its manager has an opinion on. Ownership is kept per field as
// managed_fields.h describes.
//
// An apply by manager M (the required fieldManager parameter) of configuration C:
//   - creates the object from C when it does not exist (the caller also needs `create`),
//     M's Apply entry owning every field C sets;
//   - otherwise, for each field C sets to a value other than the live one that another
//     manager owns, is a conflict: 409 Conflict naming each field and manager, unless
//     force=true, which takes those fields from their owners;
//   - sets every field of C; a field C sets to the live value is shared with its owners;
//   - removes each field M applied before but C leaves out, unless another manager owns it;
//   - changes nothing (no new resourceVersion, no watch event) when the result equals the
//     stored object, whatever the time.
// The body must be JSON (which is YAML too); YAML in other forms is refused.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/http_types.h"

namespace credledger::kubeapi {

// True when `content_type` (parameters ignored) is application/apply-patch+yaml.
bool IsApplyPatch(const std::string& content_type);

// One apply request.
struct ApplyRequest {
  std::string manager;           // the fieldManager parameter
  bool force = false;            // the force parameter
  std::string api_version;       // the URL's group/version, recorded in the manager's entry
  absl::Time now;                // the time of the manager's entry
  nlohmann::json configuration;  // the body, metadata.name set to the URL's name
};

// Reads the apply request `http` for the object `name` of the URL.
// Errors: 422 Invalid (kind PatchOptions) without fieldManager; 400 BadRequest for a force
// value other than "true" or "false", a body that is not a JSON object, a body carrying
// metadata.managedFields, or one naming another object than the URL.
absl::StatusOr<ApplyRequest> ParseApplyRequest(const HttpRequest& http, const std::string& name,
                                               std::string api_version, absl::Time now);

// Checks the options of a PATCH that is not an apply.
// Errors: 422 Invalid (kind PatchOptions) when it passes force.
absl::Status CheckPatchOptions(const HttpRequest& http);

// Gives `created`, the object a create-on-apply stores, its one managedFields entry.
void OwnAppliedObject(const ApplyRequest& request, nlohmann::json& created);

// Merges the request's configuration into `current` as described above. Returns the object
// to store, equal to `current` when the apply changes nothing. The configuration's
// apiVersion and kind, and its metadata.namespace and resourceVersion when set, are kept in
// the result for the update rules (object_rules.h) to check, as those of a PUT body.
// Errors: 409 Conflict, as kube-apiserver words it ("Apply failed with 1 conflict:
// conflict with \"kubectl-label\" using v1 at <time>: .metadata.labels.team"), with one
// details.causes entry (reason FieldManagerConflict) per field and manager.
absl::StatusOr<nlohmann::json> MergeApply(const nlohmann::json& current,
                                          const ApplyRequest& request);

}  // namespace credledger::kubeapi
