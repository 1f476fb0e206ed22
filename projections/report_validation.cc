#include "projections/report_validation.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/field_error.h"
#include "common/quote_cut.h"
#include "common/rfc3339.h"
#include "common/status_macros.h"
#include "projections/timestamp_validation.h"

namespace credledger::projections {
namespace {

using google::protobuf::RepeatedPtrField;

// Values longer than this are cut in messages.
constexpr size_t kShownBytes = 64;

// `value` quoted for a message, cut after kShownBytes.
std::string Shown(absl::string_view value) { return common::QuoteCut(value, kShownBytes); }

absl::Status MaxBytes(absl::string_view path, absl::string_view value, size_t max) {
  if (value.size() <= max) return absl::OkStatus();
  return common::FieldError(path, absl::StrCat(value.size(), " bytes; at most ", max, " allowed"));
}

absl::Status MaxEntries(absl::string_view path, int count, int max) {
  if (count <= max) return absl::OkStatus();
  return common::FieldError(path, absl::StrCat(count, " entries; at most ", max, " allowed"));
}

absl::Status Required(absl::string_view path, absl::string_view value, size_t max) {
  if (value.empty()) return common::FieldError(path, "required");
  return MaxBytes(path, value, max);
}

absl::Status PascalCase(absl::string_view path, absl::string_view value) {
  RETURN_IF_ERROR(Required(path, value, kMaxPascalCaseBytes));
  bool ok = absl::ascii_isupper(value.front());
  for (char c : value) ok = ok && absl::ascii_isalnum(c);
  if (ok) return absl::OkStatus();
  return common::FieldError(path,
                            absl::StrCat(Shown(value),
                                         " is not PascalCase (an uppercase letter followed by "
                                         "letters and digits)"));
}

absl::Status ConditionStatus(absl::string_view path, absl::string_view value) {
  if (value.empty()) return common::FieldError(path, "required");
  if (value == "True" || value == "False" || value == "Unknown") return absl::OkStatus();
  return common::FieldError(path,
                            absl::StrCat(Shown(value), " is not one of True, False, Unknown"));
}

absl::Status ValidateCheck(absl::string_view path, const v1::PreflightCheck& check) {
  RETURN_IF_ERROR(PascalCase(absl::StrCat(path, ".type"), check.type()));
  RETURN_IF_ERROR(ConditionStatus(absl::StrCat(path, ".status"), check.status()));
  RETURN_IF_ERROR(PascalCase(absl::StrCat(path, ".reason"), check.reason()));
  return MaxBytes(absl::StrCat(path, ".message"), check.message(), kMaxCheckMessageBytes);
}

absl::Status ValidateChecks(absl::string_view prefix,
                            const RepeatedPtrField<v1::PreflightCheck>& checks) {
  const std::string path = absl::StrCat(prefix, ".preflight.checks");
  RETURN_IF_ERROR(MaxEntries(path, checks.size(), kMaxPreflightChecks));
  std::map<std::string, int> first_index;
  for (int i = 0; i < checks.size(); ++i) {
    const std::string item = absl::StrCat(path, "[", i, "]");
    RETURN_IF_ERROR(ValidateCheck(item, checks[i]));
    auto [it, inserted] = first_index.emplace(checks[i].type(), i);
    if (!inserted) {
      return common::FieldError(absl::StrCat(item, ".type"),
                                absl::StrCat(Shown(checks[i].type()), " duplicates checks[",
                                             it->second, "]; check types are unique"));
    }
  }
  return absl::OkStatus();
}

absl::Status ConditionType(absl::string_view path, absl::string_view value) {
  RETURN_IF_ERROR(Required(path, value, kMaxPascalCaseBytes));
  bool ok = absl::ascii_isalpha(value.front());
  for (char c : value) {
    ok = ok && (absl::ascii_isalnum(c) || c == '.' || c == '-' || c == '_' || c == '/');
  }
  if (ok) return absl::OkStatus();
  return common::FieldError(path,
                            absl::StrCat(Shown(value),
                                         " is not a condition type (a letter followed by letters, "
                                         "digits, '.', '-', '_' or '/')"));
}

absl::Status ValidateCondition(absl::string_view path, const v1::ReportCondition& condition) {
  RETURN_IF_ERROR(ConditionType(absl::StrCat(path, ".type"), condition.type()));
  RETURN_IF_ERROR(ConditionStatus(absl::StrCat(path, ".status"), condition.status()));
  RETURN_IF_ERROR(
      MaxBytes(absl::StrCat(path, ".reason"), condition.reason(), kMaxConditionReasonBytes));
  RETURN_IF_ERROR(
      MaxBytes(absl::StrCat(path, ".message"), condition.message(), kMaxConditionMessageBytes));
  if (condition.observed_generation() < 0) {
    return common::FieldError(absl::StrCat(path, ".observedGeneration"),
                              absl::StrCat(condition.observed_generation(), " is negative"));
  }
  if (!condition.has_last_transition_time()) return absl::OkStatus();
  return ValidateTimestamp(absl::StrCat(path, ".lastTransitionTime"),
                           condition.last_transition_time());
}

absl::Status ValidateConditions(absl::string_view path,
                                const RepeatedPtrField<v1::ReportCondition>& conditions) {
  RETURN_IF_ERROR(MaxEntries(path, conditions.size(), kMaxConditionsPerHalf));
  for (int i = 0; i < conditions.size(); ++i) {
    RETURN_IF_ERROR(ValidateCondition(absl::StrCat(path, "[", i, "]"), conditions[i]));
  }
  return absl::OkStatus();
}

absl::Status ValidateRelease(absl::string_view path, const v1::ReleaseStatus& release) {
  RETURN_IF_ERROR(common::ValidateDnsLabel(absl::StrCat(path, ".name"), release.name()));
  RETURN_IF_ERROR(common::ValidateDnsLabel(absl::StrCat(path, ".namespace"), release.namespace_()));
  if (release.phase() == v1::RELEASE_PHASE_UNSPECIFIED) {
    return common::FieldError(absl::StrCat(path, ".phase"), "required");
  }
  if (!v1::ReleasePhase_IsValid(release.phase())) {
    return common::FieldError(
        absl::StrCat(path, ".phase"),
        absl::StrCat(static_cast<int>(release.phase()), " is not a known phase"));
  }
  RETURN_IF_ERROR(MaxBytes(absl::StrCat(path, ".revision"), release.revision(), kMaxRevisionBytes));
  RETURN_IF_ERROR(
      ValidateConditions(absl::StrCat(path, ".sourceConditions"), release.source_conditions()));
  return ValidateConditions(absl::StrCat(path, ".helmConditions"), release.helm_conditions());
}

absl::Status ValidateReleases(absl::string_view prefix,
                              const RepeatedPtrField<v1::ReleaseStatus>& releases) {
  const std::string path = absl::StrCat(prefix, ".releases");
  RETURN_IF_ERROR(MaxEntries(path, releases.size(), kMaxReleases));
  std::map<std::pair<std::string, std::string>, int> first_index;
  for (int i = 0; i < releases.size(); ++i) {
    const v1::ReleaseStatus& release = releases[i];
    const std::string item = absl::StrCat(path, "[", i, "]");
    RETURN_IF_ERROR(ValidateRelease(item, release));
    auto [it, inserted] = first_index.emplace(std::pair(release.namespace_(), release.name()), i);
    if (!inserted) {
      return common::FieldError(
          absl::StrCat(item, ".name"),
          absl::StrCat("release \"", release.namespace_(), "/", release.name(),
                       "\" duplicates releases[", it->second, "]; (name, namespace) is unique"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateResources(absl::string_view path,
                               const RepeatedPtrField<v1::ResourceQuantity>& resources) {
  RETURN_IF_ERROR(MaxEntries(path, resources.size(), kMaxCapacityResources));
  for (int i = 0; i < resources.size(); ++i) {
    const v1::ResourceQuantity& entry = resources[i];
    const std::string item = absl::StrCat(path, "[", i, "]");
    RETURN_IF_ERROR(Required(item, entry.resource(), kMaxResourceNameBytes));
    if (i > 0 && entry.resource() <= resources[i - 1].resource()) {
      return common::FieldError(item, absl::StrCat(Shown(entry.resource()), " follows ",
                                                   Shown(resources[i - 1].resource()),
                                                   "; entries are ordered by resource name without "
                                                   "duplicates"));
    }
    RETURN_IF_ERROR(Required(absl::StrCat(path, "[", entry.resource(), "]"), entry.quantity(),
                             kMaxQuantityBytes));
  }
  return absl::OkStatus();
}

absl::Status ValidateCapacity(absl::string_view prefix, const v1::ClusterCapacity& capacity) {
  const std::string path = absl::StrCat(prefix, ".capacity");
  if (capacity.node_count() < 0) {
    return common::FieldError(absl::StrCat(path, ".nodeCount"),
                              absl::StrCat(capacity.node_count(), " is negative"));
  }
  RETURN_IF_ERROR(ValidateResources(absl::StrCat(path, ".allocatable"), capacity.allocatable()));
  return ValidateResources(absl::StrCat(path, ".used"), capacity.used());
}

}  // namespace

absl::Status ValidateReportContent(const v1::TargetReportSpec& report,
                                   absl::string_view field_prefix) {
  RETURN_IF_ERROR(ValidateReportTime(report, field_prefix));
  RETURN_IF_ERROR(ValidateReleases(field_prefix, report.releases()));
  RETURN_IF_ERROR(ValidateChecks(field_prefix, report.preflight_checks()));
  if (!report.has_capacity()) return absl::OkStatus();
  return ValidateCapacity(field_prefix, report.capacity());
}

absl::Status ValidateReportTime(const v1::TargetReportSpec& report,
                                absl::string_view field_prefix) {
  const std::string time_path = absl::StrCat(field_prefix, ".lastReportTime");
  if (!report.has_last_report_time()) return common::FieldError(time_path, "required");
  return ValidateTimestamp(time_path, report.last_report_time());
}

bool ReportTimeTooFarAhead(absl::Time report_time, absl::Time now) {
  return report_time > now + kMaxReportTimeAhead;
}

absl::Status ValidateReportOrder(absl::Time report_time, std::optional<absl::Time> last_accepted,
                                 absl::string_view field) {
  if (!last_accepted.has_value() || report_time > *last_accepted) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      field, ": ", common::FormatRfc3339(report_time),
      " is not later than the last accepted report's ", common::FormatRfc3339(*last_accepted)));
}

absl::Status ValidateReportClock(absl::Time report_time, absl::Time now, absl::string_view field) {
  if (!ReportTimeTooFarAhead(report_time, now)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", common::FormatRfc3339(report_time), " is more than ",
                   absl::FormatDuration(kMaxReportTimeAhead), " ahead of the server's clock (",
                   common::FormatRfc3339(now), ")"));
}

}  // namespace credledger::projections
