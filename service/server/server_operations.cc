// Server::StartOperations and Server::WireOperations: the metrics, the readiness checks and
// the HTTP endpoint of `credledger serve` (docs/operations.md, "Metrics and health" and
// "Metrics", which list every metric below).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/atomic_file.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "service/server/server.h"
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

absl::Status RegisterLogMetrics(common::MetricsRegistry& metrics,
                                const store::SqliteEventStore* store) {
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
  return metrics.AddCallbackValue(
      "credledger_targets_stale", "Active Targets whose Reporting condition is False/Stale.",
      MetricType::kGauge, [status] { return static_cast<double>(status->StaleTargets()); });
}

}  // namespace

absl::Status Server::StartOperations() {
  if (!options_.lease_name.empty() && !options_.read_only) {
    readiness_.AddGate(kLeaseGate, "waiting to acquire the Lease");
  }
  readiness_.AddGate(kLogGate, "opening and verifying the event log");
  readiness_.AddGate(kProjectionsGate, "catching up with the head of the log");
  readiness_.AddGate(kGrpcGate, "the gRPC API is not serving yet");
  ASSIGN_OR_RETURN(common::MetricFamily<common::Gauge> * started,
                   metrics_.AddGauge("credledger_start_time_seconds",
                                     "Unix time at which this process started, in seconds."));
  started->WithLabels({}).Set(absl::ToUnixMicros(absl::Now()) / 1e6);
  ASSIGN_OR_RETURN(
      common::MetricFamily<common::Counter> * kube,
      metrics_.AddCounter("credledger_kube_requests_total",
                          "Kubernetes API request attempts by verb and HTTP status code "
                          "(\"error\": no response).",
                          {"verb", "code"}));
  kube_requests_ = [kube](absl::string_view verb, int code) {
    kube->WithLabels({std::string(verb), code == 0 ? "error" : absl::StrCat(code)}).Increment();
  };
  if (options_.http_listen.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(http_server_,
                   OperationsHttpServer::Start(options_.http_listen, &metrics_, &readiness_));
  if (!options_.http_port_file.empty()) {
    absl::Status written = common::WriteFileAtomically(
        options_.http_port_file, absl::StrCat(http_server_->port(), "\n"),
        {.label = "--http-port-file"});
    if (!written.ok()) return absl::InternalError(written.message());
  }
  common::Log(common::LogLevel::kInfo, "serving /metrics, /healthz and /readyz over HTTP",
              {{"port", absl::StrCat(http_server_->port())}});
  return absl::OkStatus();
}

absl::Status Server::WireOperations() {
  RETURN_IF_ERROR(RegisterLogMetrics(metrics_, store_.get()));
  std::vector<Controller> controllers;
  if (const kubebridge::CredentialBridge* b = bridge_.get(); b != nullptr) {
    controllers.push_back({"credential_bridge", [b] { return b->reconcile_errors(); },
                           [b] { return b->QueueDepth(); }});
  }
  if (const kubebridge::MirrorBridge* b = mirror_bridge_.get(); b != nullptr) {
    controllers.push_back({"mirror_bridge", [b] { return b->reconcile_errors(); },
                           [b] { return b->QueueDepth(); }});
  }
  if (const kubebridge::ClusterBridge* b = connections_->cluster_bridge(); b != nullptr) {
    controllers.push_back({"cluster_prober", [b] { return b->reconcile_errors(); }, nullptr});
  }
  RETURN_IF_ERROR(RegisterControllerMetrics(metrics_, std::move(controllers)));
  RETURN_IF_ERROR(
      RegisterProjectionMetrics(metrics_, projector_.get(), status_projector_.get()));
  // A projection that stopped at an event it cannot fold serves stale answers.
  readiness_.AddCheck(
      "projectors", [credentials = projector_.get(), status = status_projector_.get(),
                     identities = identity_projector_.get(),
                     clusters = connections_->cluster_projector()]() -> absl::Status {
        for (const absl::Status& stopped :
             {credentials->status(), status->status(), identities->status(), clusters->status()}) {
          if (!stopped.ok()) return stopped;
        }
        return absl::OkStatus();
      });
  readiness_.OpenGate(kGrpcGate);
  return absl::OkStatus();
}

}  // namespace credledger::service
