// The Kubernetes objects that give a Target's agent its identity and credential
// (docs/kubernetes.md, "Objects per Target" and "Credential Secrets"): names, label and
// annotation keys, and JSON builders for the ServiceAccount, Role, RoleBinding, TargetReport
// and credential Secret, plus the digest ApplyIfDrifted compares so steady state writes
// nothing.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Label and annotation keys, exact strings (docs/kubernetes.md, "Credential Secrets").
inline constexpr char kCredentialLabel[] = "solar.opendefense.cloud/agent-credential";
inline constexpr char kCredentialTargetUidLabel[] =
    "solar.opendefense.cloud/agent-credential-target-uid";
inline constexpr char kRotationRequestAnnotation[] = "solar.opendefense.cloud/rotation-request";
inline constexpr char kExpiresAtAnnotation[] = "solar.opendefense.cloud/expires-at";
// credledger's own annotation: the mint attempt that created the Secret (docs/design.md,
// "Intent and outcome"; docs/kubernetes.md, "Credential Secrets").
inline constexpr char kAttemptAnnotation[] = "credledger.opendefense.cloud/mint-attempt";
// Marks the objects credledger manages.
inline constexpr char kManagedByLabel[] = "app.kubernetes.io/managed-by";
inline constexpr char kManagedByValue[] = "credledger";
// The field manager of credledger's server-side applies (docs/kubernetes.md, "Objects per
// Target").
inline constexpr char kFieldManager[] = "credledger";
// The Secret key holding the token.
inline constexpr char kTokenKey[] = "token";

// "solar-agent-<target>": the ServiceAccount, Role and RoleBinding name.
std::string AgentIdentityName(absl::string_view target);
// "solar-agent-<target>-<suffix>": a credential Secret name.
std::string CredentialSecretName(absl::string_view target, int64_t suffix);
// The <n> of a credential Secret name of `target`; -1 when `name` is not one.
int64_t CredentialSecretSuffix(absl::string_view target, absl::string_view name);

// Resource references in `ns` (name empty = the collection).
ResourceRef SecretResource(absl::string_view ns, absl::string_view name = "");
ResourceRef ServiceAccountResource(absl::string_view ns, absl::string_view name = "");
ResourceRef RoleResource(absl::string_view ns, absl::string_view name = "");
ResourceRef RoleBindingResource(absl::string_view ns, absl::string_view name = "");
ResourceRef TargetReportResource(absl::string_view ns, absl::string_view name = "");

// Desired objects of Target `target` in namespace `ns`. The ServiceAccount, Role and
// RoleBinding hold only credledger's fields: they are its apply configurations.
nlohmann::json ServiceAccountObject(absl::string_view ns, absl::string_view target);
// get on targets and get, update on targetreports (group solar.opendefense.cloud), both with
// resourceNames [target].
nlohmann::json RoleObject(absl::string_view ns, absl::string_view target);
// Binds the Role to the ServiceAccount.
nlohmann::json RoleBindingObject(absl::string_view ns, absl::string_view target);
// TargetReport (solar.opendefense.cloud/v1alpha1) named like the Target, with an empty spec.
nlohmann::json TargetReportObject(absl::string_view ns, absl::string_view target);
// The empty credential Secret of a mint attempt: both labels, the attempt annotation, and
// the rotation-request annotation when `request_value` is non-empty. No token yet.
nlohmann::json CredentialSecretObject(absl::string_view ns, absl::string_view target,
                                      absl::string_view target_uid, int64_t suffix,
                                      absl::string_view attempt_id,
                                      absl::string_view request_value);

// The digest of the fields of a ServiceAccount, Role or RoleBinding that credledger owns:
// the app.kubernetes.io/managed-by label, `rules`, `roleRef` and `subjects` (absent ones as
// null). Equal for a live object and its apply configuration exactly when the object needs
// no write; whatever else the object holds, such as labels, annotations or imagePullSecrets
// other managers added, does not change it (docs/kubernetes.md, "Objects per Target").
uint64_t IdentityDigest(const nlohmann::json& object);

// RFC 3339 UTC with seconds and "Z", the format of the expires-at annotation.
std::string FormatExpiresAt(absl::Time t);
// Parses a Kubernetes RFC 3339 timestamp ("2026-01-01T00:00:00Z", fractional seconds and
// offsets accepted). Returns false when it does not parse.
bool ParseKubeTime(absl::string_view text, absl::Time* out);

}  // namespace credledger::kubebridge
