// Release phase derivation (docs/reports.md, "Release phases"): a pure library over the
// conditions of a release's OCIRepository (source) and HelmRelease halves. The agent derives
// each release's phase with it; the rollups derive the flags beside the phase from the
// conditions the report carries.
//
// Current Flux behaviour these rules follow: helm-controller does stall a HelmRelease whose
// retries ran out (Stalled=True, reason RetriesExceeded), so Stalled counts on either half;
// Ready=False outranks Reconciling=True (Flux holds Reconciling while it retries); the
// object's status.observedGeneration is ignored (it lags during a reconcile and is -1 before
// any controller touched the object): only each condition's own observedGeneration gates.
// A condition type present more than once counts by its first current occurrence.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "credledger/v1/report.pb.h"
#include "credledger/v1/state.pb.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace credledger::projections {

// The OCIRepository half of a release: its metadata.generation and status.conditions.
struct SourceHalf {
  int64_t generation = 0;
  std::vector<v1::ReportCondition> conditions;
};

// The HelmRelease half: generation, conditions, status.installFailures and
// status.upgradeFailures, and spec.install/upgrade.remediation.retries (nullopt when
// unset: Flux's default 0; negative: retry forever).
struct HelmReleaseHalf {
  int64_t generation = 0;
  std::vector<v1::ReportCondition> conditions;
  int64_t install_failures = 0;
  int64_t upgrade_failures = 0;
  std::optional<int64_t> install_retries;
  std::optional<int64_t> upgrade_retries;
};

// The conditions that describe the object's current spec: those whose observed_generation
// is 0 (absent) or equals `generation`, in their original order.
std::vector<v1::ReportCondition> CurrentConditions(
    int64_t generation, const std::vector<v1::ReportCondition>& conditions);

// The phase of a release, first match wins: a half missing -> PENDING; Stalled=True on
// either half, or HelmRelease Remediated=True with install or upgrade failures strictly
// greater than that action's retries (unset: 0; negative: never exceeded) -> FAILED;
// Ready=False on either half -> DEGRADED; Reconciling=True on either half -> PROGRESSING;
// Ready=True on both -> READY; otherwise PROGRESSING. Only current conditions
// (CurrentConditions of each half's own generation) count.
v1::ReleasePhase DerivePhase(const std::optional<SourceHalf>& source,
                             const std::optional<HelmReleaseHalf>& helm);

// The flags beside the phase from conditions already limited to the current ones:
// verified (source SourceVerified=True), rolled_back (helm Remediated=True with reason
// RollbackSucceeded), test_failed (helm TestSuccess=False), drifted (helm Drifted=True).
v1::ReleaseFlags DeriveFlags(const std::vector<v1::ReportCondition>& source_conditions,
                             const std::vector<v1::ReportCondition>& helm_conditions);
// The same over a report's lists (v1::ReleaseStatus source_conditions/helm_conditions).
v1::ReleaseFlags DeriveFlags(
    const google::protobuf::RepeatedPtrField<v1::ReportCondition>& source_conditions,
    const google::protobuf::RepeatedPtrField<v1::ReportCondition>& helm_conditions);

// "Pending", "Progressing", "Ready", "Degraded", "Failed"; "" for UNSPECIFIED and for a
// value outside the enum.
std::string PhaseName(v1::ReleasePhase phase);

// The phase named `name` (as PhaseName spells it); nullopt for any other string.
std::optional<v1::ReleasePhase> PhaseFromName(absl::string_view name);

}  // namespace credledger::projections
