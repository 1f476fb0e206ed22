// Server::StartOperations, Server::WireOperations and Server::StopOperations: the metrics, the
// readiness checks and the HTTP endpoint of `credledger serve` (docs/operations.md, "Metrics
// and health" and "Metrics", which list every metric below).
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/atomic_file.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "projections/cluster_projection.h"
#include "projections/credential_projection.h"
#include "projections/identity_projection.h"
#include "projections/status_projection.h"
#include "service/server/server.h"
#include "service/server/server_components.h"
#include "service/server/startup_gates.h"

namespace credledger::service {
namespace {

using common::MetricSample;
using common::MetricType;

// One reconcile loop as metrics see it. `queue_depth` may be unset.
struct Controller {
  std::string name;
  std::function<int64_t()> errors;
  std::function<size_t()> queue_depth;
};

absl::Status RegisterLogMetrics(common::MetricsRegistry& metrics, const store::EventLog* store) {
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_log_events_appended_total", "Events appended to the log by this process.",
      MetricType::kCounter, [store] { return static_cast<double>(store->stats().events); }));
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_log_failed_commits_total",
      "Group commits that committed nothing: a busy or full disk, an I/O error, a lost Lease.",
      MetricType::kCounter,
      [store] { return static_cast<double>(store->stats().failed_batches); }));
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_log_head_seq", "Seq of the last durable event of the log.", MetricType::kGauge,
      [store] { return static_cast<double>(store->HeadSeq()); }));
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_log_writer_epoch",
      "The writer's epoch of a PostgreSQL log (docs/postgres.md, \"The fence\"); 0 on SQLite.",
      MetricType::kGauge, [store] { return static_cast<double>(store->writer_epoch()); }));
  RETURN_IF_ERROR(metrics.AddCallback(
      "credledger_postgres_errors_total",
      "Errors of the PostgreSQL server by SQLSTATE class (\"connection\": no answer).",
      MetricType::kCounter, {"sqlstate_class"}, [store] {
        std::vector<MetricSample> samples;
        for (const auto& [sqlstate_class, count] : store->database_errors()) {
          samples.push_back({{sqlstate_class}, static_cast<double>(count)});
        }
        return samples;
      }));
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_log_writer_queue_depth", "Commands waiting for the log's single writer.",
      MetricType::kGauge, [store] { return static_cast<double>(store->stats().queue_depth); }));
  RETURN_IF_ERROR(metrics.AddHistogram(
      "credledger_log_append_latency_seconds",
      "Seconds from handing a command to the log's writer to its answer (durable commit, "
      "rejection or failure).",
      &store->append_latency()));
  return metrics.AddHistogram("credledger_log_group_commit_commands",
                              "Commands per group commit (one transaction, one fsync).",
                              &store->batch_sizes());
}

absl::Status RegisterControllerMetrics(common::MetricsRegistry& metrics,
                                       std::vector<Controller> controllers) {
  RETURN_IF_ERROR(metrics.AddCallback(
      "credledger_reconcile_errors_total",
      "Reconcile passes that failed and were retried with backoff, by controller.",
      MetricType::kCounter, {"controller"}, [controllers] {
        std::vector<MetricSample> samples;
        for (const Controller& c : controllers) {
          samples.push_back({{c.name}, static_cast<double>(c.errors())});
        }
        return samples;
      }));
  return metrics.AddCallback(
      "credledger_reconcile_queue_depth", "Keys waiting in a controller's work queue.",
      MetricType::kGauge, {"controller"}, [controllers] {
        std::vector<MetricSample> samples;
        for (const Controller& c : controllers) {
          if (c.queue_depth) {
            samples.push_back({{c.name}, static_cast<double>(c.queue_depth())});
          }
        }
        return samples;
      });
}

absl::Status RegisterProjectionMetrics(common::MetricsRegistry& metrics,
                                       const projections::CredentialProjector* credentials,
                                       const projections::StatusProjector* status) {
  RETURN_IF_ERROR(metrics.AddCallback(
      "credledger_credentials",
      "Registered Targets by status and reason of their AgentCredentialReady condition.",
      MetricType::kGauge, {"status", "reason"}, [credentials] {
        std::vector<MetricSample> samples;
        for (const auto& [condition, targets] : credentials->CredentialReadyCounts()) {
          samples.push_back({{condition.first, condition.second}, static_cast<double>(targets)});
        }
        return samples;
      }));
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_targets_stale", "Active Targets whose Reporting condition is False/Stale.",
      MetricType::kGauge, [status] { return static_cast<double>(status->StaleTargets()); }));
  return metrics.AddCallbackValue(
      "credledger_targets_clock_skew",
      "Active Targets whose Reporting condition is False/ClockSkew: their agent's clock runs "
      "ahead and its reports are refused.",
      MetricType::kGauge, [status] { return static_cast<double>(status->ClockSkewTargets()); });
}

// The limits of the report path (docs/reports.md, "Limits"): refusals by reason, held
// reports, and whether free space is below the reserve.
absl::Status RegisterReportLimitMetrics(common::MetricsRegistry& metrics,
                                        const ReportIngest* ingest, const SpaceReserve* space) {
  RETURN_IF_ERROR(metrics.AddCallback(
      "credledger_reports_refused_total",
      "Reports refused by a limit, by reason: too_large (--report-max-bytes) or no_space "
      "(reports and heartbeats below --space-reserve).",
      MetricType::kCounter, {"reason"}, [ingest] {
        const ReportIngest::Stats stats = ingest->stats();
        return std::vector<MetricSample>{
            {{"no_space"}, static_cast<double>(stats.refused_no_space)},
            {{"too_large"}, static_cast<double>(stats.refused_too_large)}};
      }));
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_reports_held",
      "Changed reports waiting for --report-min-interval (at most one per Target).",
      MetricType::kGauge, [ingest] { return static_cast<double>(ingest->stats().held); }));
  return metrics.AddCallbackValue(
      "credledger_space_reserve_low",
      "1 while free space on the log's file system is below --space-reserve (reports and "
      "heartbeats refused), else 0.",
      MetricType::kGauge, [space] { return space->Check().ok() ? 0.0 : 1.0; });
}

// Snapshots refused by `snapshots` (null without a signing key: none is loaded), by
// projection, every projection of the service listed from 0.
absl::Status RegisterSnapshotMetrics(common::MetricsRegistry& metrics,
                                     const projections::SnapshotGuard* snapshots) {
  return metrics.AddCallback(
      "credledger_snapshots_rejected_total",
      "Projection snapshots not loaded because they did not verify (signature, chain hash or "
      "state hash), by projection.",
      MetricType::kCounter, {"projection"}, [snapshots] {
        std::map<std::string, int64_t> rejected;
        for (const char* name :
             {projections::kClusterProjectionName, projections::kCredentialProjectionName,
              projections::kIdentityProjectionName, projections::kStatusProjectionName}) {
          rejected[name] = 0;
        }
        if (snapshots != nullptr) {
          for (const auto& [name, count] : snapshots->Rejected()) rejected[name] = count;
        }
        std::vector<MetricSample> samples;
        for (const auto& [name, count] : rejected) {
          samples.push_back({{name}, static_cast<double>(count)});
        }
        return samples;
      });
}

}  // namespace

absl::Status Server::StartOperations() {
  Readiness& readiness = operations_->readiness;
  common::MetricsRegistry& metrics = operations_->metrics;
  if (!options_.lease.name.empty() && !options_.log.read_only) {
    readiness.AddGate(kLeaseGate,
                      "standby: waiting to acquire the Lease (another replica may be writing)");
  }
  readiness.AddGate(kLogGate, "opening and verifying the event log");
  readiness.AddGate(kProjectionsGate, "catching up with the head of the log");
  readiness.AddGate(kGrpcGate, "the gRPC API is not serving yet");
  ASSIGN_OR_RETURN(common::MetricFamily<common::Gauge> * started,
                   metrics.AddGauge("credledger_start_time_seconds",
                                    "Unix time at which this process started, in seconds."));
  started->WithLabels({}).Set(absl::ToUnixMicros(absl::Now()) / 1e6);
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_log_writer",
      "1 while this replica writes the event log (it opened it read-write, holding the Lease "
      "when there is one); 0 while it waits for the Lease as a standby, starts, or serves "
      "read-only.",
      MetricType::kGauge, [ops = operations_.get()] { return ops->writing.load() ? 1.0 : 0.0; }));
  ASSIGN_OR_RETURN(
      common::MetricFamily<common::Counter> * kube,
      metrics.AddCounter("credledger_kube_requests_total",
                         "Kubernetes API request attempts by verb and HTTP status code "
                         "(\"error\": no response).",
                         {"verb", "code"}));
  operations_->kube_requests = [kube](absl::string_view verb, int code) {
    kube->WithLabels({std::string(verb), code == 0 ? "error" : absl::StrCat(code)}).Increment();
  };
  if (options_.http.listen_address.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(operations_->http_server,
                   OperationsHttpServer::Start(options_.http.listen_address, &metrics, &readiness,
                                               options_.http.limits));
  const int port = operations_->http_server->port();
  if (!options_.http.port_file.empty()) {
    absl::Status written = common::WriteFileAtomically(
        options_.http.port_file, absl::StrCat(port, "\n"), {.label = "--http-port-file"});
    if (!written.ok()) return absl::InternalError(written.message());
  }
  common::Log(common::LogLevel::kInfo, "serving /metrics, /healthz and /readyz over HTTP",
              {{"port", absl::StrCat(port)}});
  return absl::OkStatus();
}

absl::Status Server::WireOperations() {
  common::MetricsRegistry& metrics = operations_->metrics;
  RETURN_IF_ERROR(RegisterLogMetrics(metrics, log_->store.get()));
  std::vector<Controller> controllers;
  if (const kubebridge::CredentialBridge* b = bridge_->credential_bridge.get(); b != nullptr) {
    controllers.push_back({"credential_bridge", [b] { return b->reconcile_errors(); },
                           [b] { return b->QueueDepth(); }});
  }
  if (const kubebridge::MirrorBridge* b = bridge_->mirror_bridge.get(); b != nullptr) {
    controllers.push_back(
        {"mirror_bridge", [b] { return b->reconcile_errors(); }, [b] { return b->QueueDepth(); }});
  }
  ConnectionServices* connections = bridge_->connections.get();
  if (const kubebridge::ClusterBridge* b = connections->cluster_bridge(); b != nullptr) {
    controllers.push_back({"cluster_prober", [b] { return b->reconcile_errors(); }, nullptr});
  }
  RETURN_IF_ERROR(RegisterControllerMetrics(metrics, std::move(controllers)));
  RETURN_IF_ERROR(
      RegisterProjectionMetrics(metrics, log_->projector.get(), log_->status_projector.get()));
  RETURN_IF_ERROR(RegisterSnapshotMetrics(metrics, log_->snapshots.get()));
  RETURN_IF_ERROR(
      RegisterReportLimitMetrics(metrics, reports_->ingest.get(), reports_->space.get()));
  // Ready, so that revocations keep reaching the service, but saying what it refuses.
  operations_->readiness.AddNotice("space",
                                   [space = reports_->space.get()] { return space->Check(); });
  // A projection that stopped at an event it cannot fold serves stale answers.
  operations_->readiness.AddCheck(
      "projectors",
      [credentials = log_->projector.get(), status = log_->status_projector.get(),
       identities = log_->identity_projector.get(),
       clusters = connections->cluster_projector()]() -> absl::Status {
        for (const absl::Status& stopped :
             {credentials->status(), status->status(), identities->status(), clusters->status()}) {
          if (!stopped.ok()) return stopped;
        }
        return absl::OkStatus();
      });
  operations_->readiness.OpenGate(kGrpcGate);
  return absl::OkStatus();
}

void Server::StopOperations() {
  if (operations_->http_server != nullptr) operations_->http_server->Stop();
  operations_->http_server.reset();
}

}  // namespace credledger::service
