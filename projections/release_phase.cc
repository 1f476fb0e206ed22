#include "projections/release_phase.h"

#include <array>
#include <utility>

namespace credledger::projections {
namespace {

constexpr char kTrue[] = "True";
constexpr char kFalse[] = "False";

// The first condition of `type` in `conditions` (any range of v1::ReportCondition);
// nullptr when there is none.
template <typename Conditions>
const v1::ReportCondition* Find(const Conditions& conditions, absl::string_view type) {
  for (const v1::ReportCondition& c : conditions) {
    if (c.type() == type) return &c;
  }
  return nullptr;
}

template <typename Conditions>
bool Has(const Conditions& conditions, absl::string_view type, absl::string_view status) {
  const v1::ReportCondition* c = Find(conditions, type);
  return c != nullptr && c->status() == status;
}

// Whether `failures` used up the remediation retries of one action: strictly more failures
// than retries; unset retries mean Flux's default 0, negative ones retry forever.
bool RetriesExhausted(int64_t failures, const std::optional<int64_t>& retries) {
  const int64_t allowed = retries.value_or(0);
  return allowed >= 0 && failures > allowed;
}

template <typename Conditions>
v1::ReleaseFlags Flags(const Conditions& source, const Conditions& helm) {
  v1::ReleaseFlags flags;
  flags.set_verified(Has(source, "SourceVerified", kTrue));
  const v1::ReportCondition* remediated = Find(helm, "Remediated");
  flags.set_rolled_back(remediated != nullptr && remediated->status() == kTrue &&
                        remediated->reason() == "RollbackSucceeded");
  flags.set_test_failed(Has(helm, "TestSuccess", kFalse));
  flags.set_drifted(Has(helm, "Drifted", kTrue));
  return flags;
}

constexpr std::array<std::pair<v1::ReleasePhase, absl::string_view>, 5> kPhaseNames = {{
    {v1::RELEASE_PHASE_PENDING, "Pending"},
    {v1::RELEASE_PHASE_PROGRESSING, "Progressing"},
    {v1::RELEASE_PHASE_READY, "Ready"},
    {v1::RELEASE_PHASE_DEGRADED, "Degraded"},
    {v1::RELEASE_PHASE_FAILED, "Failed"},
}};

}  // namespace

std::vector<v1::ReportCondition> CurrentConditions(
    int64_t generation, const std::vector<v1::ReportCondition>& conditions) {
  std::vector<v1::ReportCondition> current;
  for (const v1::ReportCondition& c : conditions) {
    if (c.observed_generation() == 0 || c.observed_generation() == generation) {
      current.push_back(c);
    }
  }
  return current;
}

v1::ReleasePhase DerivePhase(const std::optional<SourceHalf>& source,
                             const std::optional<HelmReleaseHalf>& helm) {
  if (!source.has_value() || !helm.has_value()) return v1::RELEASE_PHASE_PENDING;
  const std::vector<v1::ReportCondition> src =
      CurrentConditions(source->generation, source->conditions);
  const std::vector<v1::ReportCondition> hr = CurrentConditions(helm->generation, helm->conditions);

  if (Has(src, "Stalled", kTrue) || Has(hr, "Stalled", kTrue)) return v1::RELEASE_PHASE_FAILED;
  if (Has(hr, "Remediated", kTrue) &&
      (RetriesExhausted(helm->install_failures, helm->install_retries) ||
       RetriesExhausted(helm->upgrade_failures, helm->upgrade_retries))) {
    return v1::RELEASE_PHASE_FAILED;
  }
  if (Has(src, "Ready", kFalse) || Has(hr, "Ready", kFalse)) return v1::RELEASE_PHASE_DEGRADED;
  if (Has(src, "Reconciling", kTrue) || Has(hr, "Reconciling", kTrue)) {
    return v1::RELEASE_PHASE_PROGRESSING;
  }
  if (Has(src, "Ready", kTrue) && Has(hr, "Ready", kTrue)) return v1::RELEASE_PHASE_READY;
  return v1::RELEASE_PHASE_PROGRESSING;
}

v1::ReleaseFlags DeriveFlags(const std::vector<v1::ReportCondition>& source_conditions,
                             const std::vector<v1::ReportCondition>& helm_conditions) {
  return Flags(source_conditions, helm_conditions);
}

v1::ReleaseFlags DeriveFlags(
    const google::protobuf::RepeatedPtrField<v1::ReportCondition>& source_conditions,
    const google::protobuf::RepeatedPtrField<v1::ReportCondition>& helm_conditions) {
  return Flags(source_conditions, helm_conditions);
}

std::string PhaseName(v1::ReleasePhase phase) {
  for (const auto& [value, name] : kPhaseNames) {
    if (value == phase) return std::string(name);
  }
  return std::string();
}

std::optional<v1::ReleasePhase> PhaseFromName(absl::string_view name) {
  for (const auto& [value, phase_name] : kPhaseNames) {
    if (phase_name == name) return value;
  }
  return std::nullopt;
}

}  // namespace credledger::projections
