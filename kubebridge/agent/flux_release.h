// Reading Flux objects into release statuses (docs/reports.md, "Release phases" and
// "The agent"): an OCIRepository (source.toolkit.fluxcd.io/v1) and a HelmRelease
// (helm.toolkit.fluxcd.io/v2), as JSON objects returned by the Kubernetes API, become the
// halves the release phase library judges (projections/release_phase.h), and lists of both
// become the spec.releases[] of a TargetReport.
//
// A JSON null counts as an absent field. Errors name the object ("HelmRelease \"ns/name\"")
// and the field path (status.conditions[1].observedGeneration).
//
// Thread-safety: constants and pure functions (no I/O).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/report.pb.h"
#include "nlohmann/json.hpp"
#include "projections/release_phase.h"

namespace credledger::kubebridge {

// The annotation naming the release an OCIRepository or HelmRelease belongs to; a label of
// the same key is the fallback, and the agent lists the objects carrying that label.
inline constexpr char kReleaseKey[] = "solar.opendefense.cloud/release";

// The release name of a Flux object: its metadata.annotations[kReleaseKey] when that is a
// non-empty string, else metadata.labels[kReleaseKey] when that is one, else "".
std::string ReleaseNameOf(const nlohmann::json& object);

// The source half of `oci_repository`: metadata.generation (0 when absent) and every
// status.conditions[] entry in the object's order: type, status, reason, message (each ""
// when absent), observedGeneration (0 when absent) and lastTransitionTime (an RFC 3339
// time; unset when absent). A missing status or conditions list gives no conditions.
// Errors: kInvalidArgument naming the field path when a field has the wrong JSON type (an
// object, array, string or integer expected), an integer does not fit in 64 bits, or a
// lastTransitionTime is not an RFC 3339 time.
absl::StatusOr<projections::SourceHalf> SourceHalfFromOCIRepository(
    const nlohmann::json& oci_repository);

// The HelmRelease half of `helm_release`: generation and conditions as for the source half,
// status.installFailures and status.upgradeFailures (0 when absent), and
// spec.install.remediation.retries and spec.upgrade.remediation.retries (nullopt when
// absent).
// Errors: as SourceHalfFromOCIRepository.
absl::StatusOr<projections::HelmReleaseHalf> HelmHalfFromHelmRelease(
    const nlohmann::json& helm_release);

// The releases of a target cluster from the `items` of an OCIRepository list and of a
// HelmRelease list:
//   - objects without a release name (ReleaseNameOf) are skipped;
//   - objects pair by (metadata.namespace, release name); when two objects of one kind claim
//     the same pair, the one whose metadata.name sorts first wins, whatever the list order,
//     and the other is ignored entirely (not even read); when `ignored` is not null, one
//     line per ignored object is appended to it, naming the object and the winner;
//   - each release gets name, namespace, phase (projections::DerivePhase: Pending when a half
//     is missing), revision (the HelmRelease's status.history[0].chartVersion; "" when
//     absent) and the current conditions (projections::CurrentConditions) of each half in
//     the object's order;
//   - the result is ordered by (namespace, name).
// Errors: kInvalidArgument when a list is not an array of objects ("HelmRelease list[2]:
// want an object"), or as the half readers for a paired object.
absl::StatusOr<std::vector<v1::ReleaseStatus>> ReleasesFromFlux(
    const nlohmann::json& oci_repositories, const nlohmann::json& helm_releases,
    std::vector<std::string>* ignored = nullptr);

}  // namespace credledger::kubebridge
