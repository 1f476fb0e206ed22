#include "cli/target_printer.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli/text_fields.h"
#include "projections/proto_time.h"

namespace credledger::cli {
namespace {

// Width of the labels of LabeledLine.
constexpr int kTargetLabelWidth = 12;

// A finalized Target has no condition (docs/api.md, "Target").
std::string ConditionText(const v1::Target& target) {
  if (!target.has_agent_credential_ready()) return "none";
  const v1::TargetCondition& c = target.agent_credential_ready();
  return absl::StrCat(c.type(), "=", c.status(), " ", c.reason(),
                      c.message().empty() ? "" : absl::StrCat(": ", c.message()), " (since ",
                      FormatTimestamp(c.last_transition_time(), c.has_last_transition_time()),
                      ")");
}

}  // namespace

std::string FormatTimestamp(const google::protobuf::Timestamp& t, bool set) {
  if (!set) return "-";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", projections::FromProto(t), absl::UTCTimeZone());
}

std::string FormatTargetText(const v1::Target& target) {
  std::string out = absl::StrCat(target.namespace_(), "/", target.name(), "\n");
  absl::StrAppend(&out, LabeledLine("uid", target.uid(), kTargetLabelWidth),
                  LabeledLine("phase", target.phase(), kTargetLabelWidth),
                  LabeledLine("revoked", target.revoked() ? "yes" : "no", kTargetLabelWidth),
                  LabeledLine("condition", ConditionText(target), kTargetLabelWidth));
  if (target.has_current_credential()) {
    const v1::TargetCredential& c = target.current_credential();
    absl::StrAppend(
        &out, LabeledLine("secret", c.secret_name(), kTargetLabelWidth),
        LabeledLine("tag", c.credential_tag(), kTargetLabelWidth),
        LabeledLine("suffix", c.chart_version_suffix(), kTargetLabelWidth),
        LabeledLine("issued", FormatTimestamp(c.issued_at(), c.has_issued_at()), kTargetLabelWidth),
        LabeledLine("expires", FormatTimestamp(c.expires_at(), c.has_expires_at()),
                    kTargetLabelWidth),
        LabeledLine("rotate at", FormatTimestamp(c.rotation_due_at(), c.has_rotation_due_at()),
                    kTargetLabelWidth));
  } else {
    absl::StrAppend(&out, LabeledLine("secret", "none", kTargetLabelWidth));
  }
  if (!target.older_secret_names().empty()) {
    absl::StrAppend(&out, LabeledLine("older", absl::StrJoin(target.older_secret_names(), ", "),
                                      kTargetLabelWidth));
  }
  if (!target.open_mint_attempt_id().empty()) {
    absl::StrAppend(&out, LabeledLine("minting", target.open_mint_attempt_id(), kTargetLabelWidth));
  }
  absl::StrAppend(&out, LabeledLine("seq", absl::StrCat(target.last_seq()), kTargetLabelWidth));
  return out;
}

std::string FormatTargetTableHeader() {
  return absl::StrFormat("%-40s %-9s %-8s %-12s %-32s %s\n", "TARGET", "PHASE", "READY",
                         "REASON", "SECRET", "EXPIRES");
}

std::string FormatTargetRow(const v1::Target& target) {
  const v1::TargetCredential& c = target.current_credential();
  return absl::StrFormat(
      "%-40s %-9s %-8s %-12s %-32s %s\n", absl::StrCat(target.namespace_(), "/", target.name()),
      target.phase(), OrDash(target.agent_credential_ready().status()),
      OrDash(target.agent_credential_ready().reason()),
      target.has_current_credential() ? c.secret_name() : "-",
      FormatTimestamp(c.expires_at(), target.has_current_credential() && c.has_expires_at()));
}

std::string FormatWatchItem(const v1::WatchTargetsResponse& item) {
  if (item.kind() == v1::WatchTargetsResponse::KIND_SNAPSHOT_END) {
    return absl::StrCat(item.seq(), " end-of-snapshot\n");
  }
  const v1::Target& t = item.target();
  const char* kind = item.kind() == v1::WatchTargetsResponse::KIND_SNAPSHOT ? "snapshot" : "change";
  return absl::StrCat(
      item.seq(), " ", kind, " ", t.namespace_(), "/", t.name(), " ", t.phase(), " ",
      OrDash(t.agent_credential_ready().status()), "/", OrDash(t.agent_credential_ready().reason()),
      " ", t.has_current_credential() ? t.current_credential().secret_name() : "-", "\n");
}

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("json: ", status.message().as_string()));
  }
  return json;
}

}  // namespace credledger::cli
