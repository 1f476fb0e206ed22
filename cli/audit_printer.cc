#include "cli/audit_printer.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cli/counted.h"
#include "cli/status_printer.h"
#include "cli/target_printer.h"
#include "common/rfc3339.h"
#include "projections/proto_time.h"

namespace credledger::cli {
namespace {

// Hex characters of the CA bundle hash shown; enough to tell bundles apart by eye.
constexpr size_t kCaHashShown = 12;

std::string TimeText(const google::protobuf::Timestamp& t, bool set) {
  return set ? common::FormatRfc3339(projections::FromProto(t)) : "-";
}

}  // namespace

std::string FormatServiceLine(const v1::ServiceConfigured& service, bool set) {
  if (!set) return "service: not configured yet\n";
  if (!service.credentials_enabled()) return "service: credentials disabled\n";
  const std::string& ca = service.agent_ca_sha256();
  return absl::StrCat(
      "service: credentials enabled, agent API server ", service.agent_apiserver_url(),
      ", CA sha256 ", ca.empty() ? "none" : absl::StrCat(ca.substr(0, kCaHashShown), "..."),
      ", token TTL ", absl::FormatDuration(absl::Seconds(service.agent_token_ttl_seconds())),
      ", connection hash ", service.connection_hash(), "\n");
}

std::string FormatStateAtText(const v1::GetStateAtResponse& response) {
  std::string out =
      response.seq() == 0
          ? std::string("as of seq 0 (the empty log)\n")
          : absl::StrCat("as of seq ", response.seq(), " (recorded ",
                         TimeText(response.recorded_at(), response.has_recorded_at()), ")\n");
  absl::StrAppend(&out, FormatServiceLine(response.service(), response.has_service()));
  if (response.targets().empty()) {
    absl::StrAppend(&out, "no Targets\n");
    return out;
  }
  std::map<std::pair<std::string, std::string>, const v1::TargetStatusView*> statuses;
  for (const v1::TargetStatusView& s : response.statuses()) {
    statuses[{s.namespace_(), s.name()}] = &s;
  }
  for (const v1::Target& t : response.targets()) {
    absl::StrAppend(&out, "\n", FormatTargetText(t));
    const auto status = statuses.find({t.namespace_(), t.name()});
    if (status != statuses.end()) absl::StrAppend(&out, FormatStatusText(*status->second));
  }
  return out;
}

std::string FormatDiffText(const v1::DiffResponse& response) {
  std::string out = absl::StrCat("from seq ", response.from_seq(), " to seq ", response.to_seq(),
                                 ": ", Counted(response.changes_size(), "change"), "\n");
  for (const v1::StateChange& c : response.changes()) {
    if (c.seq() != 0) absl::StrAppend(&out, "seq ", c.seq(), "  ");
    const std::string subject =
        c.namespace_().empty() ? "service" : absl::StrCat(c.namespace_(), "/", c.name());
    absl::StrAppend(&out, subject, "  ", c.summary(), "\n");
  }
  return out;
}

std::string FormatValidCredentialsText(const v1::ValidCredentialsAtResponse& response,
                                       absl::Time at) {
  std::string out;
  for (const v1::CredentialLifetime& c : response.credentials()) {
    absl::StrAppend(&out, c.namespace_(), "/", c.name(), "  secret=", c.secret().name(),
                    "  tag=", c.credential_tag(), "  token=", c.token_fingerprint(), "  issued ",
                    TimeText(c.issued_at(), c.has_issued_at()), "  expires ",
                    TimeText(c.expires_at(), c.has_expires_at()));
    if (c.has_deleted_at()) {
      absl::StrAppend(&out, "  deleted ", TimeText(c.deleted_at(), true), " (", c.deleted_reason(),
                      ")");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, Counted(response.credentials_size(), "credential"), " valid at ",
                  common::FormatRfc3339(at), " (log head seq ", response.head_seq(), ")\n");
  return out;
}

std::string FormatExportSummary(audit::ExportFormat format, const ExportTally& tally,
                                const v1::ExportTrailer& trailer) {
  std::string out = absl::StrCat("exported ", Counted(tally.events, "event"));
  if (tally.events > 0) absl::StrAppend(&out, ", seq ", tally.first_seq, "..", tally.last_seq);
  if (!audit::IsVerifiable(format)) {
    absl::StrAppend(&out, ", ", audit::ExportFormatName(format),
                    " has no trailer and does not verify");
  } else if (trailer.signature().empty()) {
    absl::StrAppend(&out,
                    ", trailer NOT signed: the server has no --signing-key; this export "
                    "will not verify");
  } else {
    absl::StrAppend(&out, ", trailer signed by key ", trailer.key_id());
  }
  return out;
}

}  // namespace credledger::cli
