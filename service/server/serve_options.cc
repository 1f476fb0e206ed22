// ValidateServeOptions and ServiceConfigurationFor (serve_options.h).
#include "service/server/serve_options.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "audit/witness.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "projections/target_state.h"
#include "service/decide/audit_decider.h"
#include "service/decide/validation.h"
#include "service/server/listen_address.h"
#include "service/server/operations_http_server.h"

namespace credledger::service {
namespace {

// The bytes of the file a flag names (common::ReadSmallFile), its errors prefixed with the
// flag: "<flag>: cannot read "<path>": <reason>".
absl::StatusOr<std::string> ReadFlagFile(absl::string_view flag,
                                         const std::filesystem::path& path) {
  absl::StatusOr<std::string> bytes = common::ReadSmallFile(path);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat(flag, ": cannot read ", bytes.status().message()));
  }
  return bytes;
}

// Errors: kInvalidArgument "<flag>: <value> is below the minimum of <minimum>" when `value` is
// below `minimum`.
absl::Status CheckAtLeast(absl::string_view flag, absl::Duration value, absl::Duration minimum) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(flag, ": ", absl::FormatDuration(value),
                                                 " is below the minimum of ",
                                                 absl::FormatDuration(minimum)));
}

// The checks of the report limits (docs/reports.md, "Limits").
absl::Status CheckReportLimits(const ServeOptions::Reports& reports) {
  const int64_t max_bytes = reports.limits.max_report_bytes;
  if (max_bytes < kMinReportBytes || max_bytes > kMaxReportBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--report-max-bytes: ", max_bytes, " is outside ", kMinReportBytes, "..", kMaxReportBytes));
  }
  const absl::Duration interval = reports.limits.min_interval;
  RETURN_IF_ERROR(CheckAtLeast("--report-min-interval", interval, absl::ZeroDuration()));
  if (interval > kMaxReportMinInterval) {
    return absl::InvalidArgumentError(
        absl::StrCat("--report-min-interval: ", absl::FormatDuration(interval),
                     " is above the maximum of ", absl::FormatDuration(kMaxReportMinInterval)));
  }
  if (interval >= reports.stale_after) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--report-min-interval: ", absl::FormatDuration(interval),
        " is not shorter than --report-stale-after (", absl::FormatDuration(reports.stale_after),
        "): held reports would mark live Targets stale"));
  }
  if (reports.space_reserve_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--space-reserve: ", reports.space_reserve_bytes,
                                                   " is negative; 0 disables the reserve"));
  }
  return absl::OkStatus();
}

// The checks of the audit group: the checkpoint policy, the witness and the adoption flags.
absl::Status CheckAuditFlags(const ServeOptions::Audit& audit) {
  if (audit.checkpoints.every_events < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--checkpoint-every: ", audit.checkpoints.every_events, " is below 1"));
  }
  RETURN_IF_ERROR(
      CheckAtLeast("--checkpoint-interval", audit.checkpoints.interval, absl::Milliseconds(10)));
  if (!audit.witness.empty()) {
    RETURN_IF_ERROR(audit::ParseWitnessSpec("--witness", audit.witness).status());
    if (audit.signing_key.empty()) {
      return absl::InvalidArgumentError(
          "--witness: requires --signing-key (a witness holds signed checkpoints)");
    }
  }
  RETURN_IF_ERROR(CheckAtLeast("--witness-interval", audit.witness_interval, absl::Seconds(1)));
  if (!audit.adopt_log) {
    if (!audit.adopt_reason.empty()) {
      return absl::InvalidArgumentError("--reason: requires --adopt-log");
    }
    if (!audit.adopted_by.empty()) {
      return absl::InvalidArgumentError("--adopted-by: requires --adopt-log");
    }
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(ValidateAdoptionReason("--reason", audit.adopt_reason));
  if (!audit.adopted_by.empty()) {
    RETURN_IF_ERROR(ValidateAdoptedBy("--adopted-by", audit.adopted_by));
  }
  return absl::OkStatus();
}

// --max-streams, --max-streams-per-caller, --watch-queue-bytes, --call-threads and
// --remote-call-threads.
absl::Status CheckGrpcLimits(const ServeOptions::Grpc& grpc) {
  const std::pair<const char*, int64_t> streams[] = {
      {"--max-streams", grpc.max_streams},
      {"--max-streams-per-caller", grpc.max_streams_per_caller}};
  for (const auto& [flag, count] : streams) {
    if (count < 1 || count > static_cast<int64_t>(kMaxStreams)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": ", count, " is outside 1..", kMaxStreams));
    }
  }
  if (const int64_t bytes = grpc.watch_queue_bytes;
      bytes < 1 || bytes > static_cast<int64_t>(kMaxWatchQueueBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--watch-queue-bytes: ", bytes, " is outside 1..", kMaxWatchQueueBytes));
  }
  for (const auto& [flag, threads] :
       {std::pair<const char*, int64_t>{"--call-threads", grpc.call_threads},
        {"--remote-call-threads", grpc.remote_call_threads}}) {
    if (threads < 1 || threads > kMaxCallThreads) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": ", threads, " is outside 1..", kMaxCallThreads));
    }
  }
  if (const std::string& audience = grpc.token_audience; !audience.empty()) {
    RETURN_IF_ERROR(ValidateToken("--token-audience", audience, kMaxTokenAudienceBytes));
  }
  return absl::OkStatus();
}

}  // namespace

store::LogLocation ServeOptions::Log::location() const {
  store::LogLocation location;
  if (store_conninfo.empty()) {
    location.sqlite_path = db_path;
  } else {
    location.postgres_conninfo = store_conninfo;
    location.postgres_password = store_password;
  }
  return location;
}

absl::Status ValidateServeOptions(const ServeOptions& options) {
  if (options.log.db_path.empty() && options.log.store_conninfo.empty()) {
    return absl::InvalidArgumentError("--db: required");
  }
  if (!options.log.store_conninfo.empty() && options.fingerprints.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--fingerprint-key: required with --store: every replica of a log must use the same "
        "key, so give it a file (a mounted Secret) rather than one made beside --db");
  }
  const absl::Duration token_ttl = options.credentials.agent_token_ttl;
  RETURN_IF_ERROR(CheckAtLeast("--agent-token-ttl", token_ttl, kMinAgentTokenTtl));
  if (token_ttl > kMaxAgentTokenTtl) {
    return absl::InvalidArgumentError(
        absl::StrCat("--agent-token-ttl: ", absl::FormatDuration(token_ttl),
                     " is above the maximum of ", absl::FormatDuration(kMaxAgentTokenTtl)));
  }
  const ServeOptions::Kube& kube = options.kube;
  RETURN_IF_ERROR(CheckAtLeast("--resync-period", kube.resync_period, absl::Seconds(1)));
  RETURN_IF_ERROR(
      CheckAtLeast("--cluster-probe-period", kube.cluster_probe_period, absl::Seconds(1)));
  if (kube.cluster_probe_record_interval < kube.cluster_probe_period) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cluster-probe-record-interval: ",
                     absl::FormatDuration(kube.cluster_probe_record_interval),
                     " is below --cluster-probe-period (",
                     absl::FormatDuration(kube.cluster_probe_period), ")"));
  }
  if (!(kube.qps > 0) || kube.burst < 1) {
    return absl::InvalidArgumentError("--kube-qps must be > 0 and --kube-burst >= 1");
  }
  const ServeOptions::Reports& reports = options.reports;
  if (reports.liveness_flush_interval < absl::Milliseconds(100) ||
      reports.liveness_flush_interval > absl::Minutes(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--liveness-flush-interval: ", absl::FormatDuration(reports.liveness_flush_interval),
        " is outside 100ms..1m"));
  }
  RETURN_IF_ERROR(CheckAtLeast("--report-stale-after", reports.stale_after, absl::Seconds(1)));
  if (reports.stale_after < reports.liveness_flush_interval) {
    return absl::InvalidArgumentError(
        absl::StrCat("--report-stale-after: ", absl::FormatDuration(reports.stale_after),
                     " is shorter than --liveness-flush-interval (",
                     absl::FormatDuration(reports.liveness_flush_interval), ")"));
  }
  RETURN_IF_ERROR(CheckReportLimits(reports));
  RETURN_IF_ERROR(CheckAuditFlags(options.audit));
  if (options.log.startup_verify_events < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--startup-verify-events: ", options.log.startup_verify_events, " is below 1"));
  }
  if (options.log.snapshot_every < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--snapshot-every: ", options.log.snapshot_every,
                                                   " is negative; 0 disables snapshots"));
  }
  if (!options.http.listen_address.empty()) {
    RETURN_IF_ERROR(ParseHttpListenAddress(options.http.listen_address).status());
  } else if (!options.http.port_file.empty()) {
    return absl::InvalidArgumentError("--http-port-file: requires --http-listen");
  }
  if (options.grpc.insecure_allow_all && !options.grpc.authorization_policy.empty()) {
    return absl::InvalidArgumentError(
        "--insecure-allow-all: conflicts with --authorization-policy; give one of them");
  }
  if (const size_t n = options.http.limits.max_connections; n < 1 || n > kMaxHttpConnections) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http-max-connections: ", n, " is outside 1..", kMaxHttpConnections));
  }
  RETURN_IF_ERROR(CheckGrpcLimits(options.grpc));
  RETURN_IF_ERROR(CheckServerTlsFlags(options.grpc.tls));
  return CheckListenAddress("--listen", options.grpc.listen_address, WantsTls(options.grpc.tls));
}

std::filesystem::path FingerprintKeyPath(const ServeOptions& options) {
  if (!options.fingerprints.key_file.empty()) return options.fingerprints.key_file;
  return options.log.db_path.parent_path() / "fingerprint-key";
}

int ReadConnections(const ServeOptions::Grpc& grpc) {
  return static_cast<int>(grpc.call_threads) + store::SqliteEventStoreOptions().read_connections;
}

absl::StatusOr<v1::ServiceConfigured> ServiceConfigurationFor(const ServeOptions& options) {
  const ServeOptions::Credentials& credentials = options.credentials;
  std::string ca_bundle;
  if (!credentials.agent_ca_file.empty()) {
    ASSIGN_OR_RETURN(ca_bundle, ReadFlagFile("--agent-ca-file", credentials.agent_ca_file));
  }
  v1::ServiceConfigured config;
  config.set_agent_apiserver_url(credentials.agent_apiserver_url);
  if (!credentials.agent_ca_file.empty()) {
    config.set_agent_ca_sha256(common::HexEncode(common::Sha256Of(ca_bundle)));
  }
  config.set_agent_token_ttl_seconds(absl::ToInt64Seconds(credentials.agent_token_ttl));
  config.set_credentials_enabled(!credentials.agent_apiserver_url.empty());
  config.set_connection_hash(
      projections::ConnectionHash(credentials.agent_apiserver_url, ca_bundle));
  return config;
}

}  // namespace credledger::service
