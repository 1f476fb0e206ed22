// ReportWatcher: follows every TargetReport in the cluster (all namespaces, group
// solar.opendefense.cloud, version v1alpha1) and hands each report an agent wrote to a
// ReportSink (docs/reports.md, "Ingest"; docs/design.md, "Watches").
//
// One thread runs the list+watch loop (watch.h) and calls the sink in the order the watch
// delivers, one call at a time. For each listed, ADDED or MODIFIED object:
//   - undecodable (target_report_codec.h)        -> logged with the decode error, skipped;
//   - no spec.lastReportTime (the empty report
//     credledger pre-creates: "no report yet")   -> skipped;
//   - otherwise                                  -> ReportSink::SubmitReport; an error it
//                                                   returns is logged, and the watch goes on.
// Each object revision is handled once: a re-list (after a 410 or an error) skips objects
// whose resourceVersion was already handled, so only revisions missed while the watch was
// down reach the sink. A report is not resubmitted after a failed SubmitReport; the agent's
// next write (at the latest after its MaxReportAge) delivers a new revision.
// Logs are JSON lines (common/log.h) naming the TargetReport and its resourceVersion;
// reports hold no secret material.
//
// Thread-safety: Start and Stop from one thread; the sink is called from the watcher's own
// thread only.
#pragma once

#include <memory>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/report.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/watch.h"

namespace credledger::kubebridge {

// Where the watcher delivers reports; service/ implements it (the report command).
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  // Submits a report read from TargetReport <namespace>/<name>. `resource_version`
  // identifies the object's revision. `report` is decoded but not validated
  // (projections/report_validation.h is the sink's job). An error is logged by the watcher.
  virtual absl::Status SubmitReport(absl::string_view target_namespace, absl::string_view name,
                                    const v1::TargetReportSpec& report,
                                    absl::string_view resource_version) = 0;
};

// Owns the watch thread described in the file comment.
class ReportWatcher {
 public:
  // Starts the watch thread over `client` with `options` (selectors are not used; the
  // watch timeout and backoff are). Neither pointer is owned; both must outlive the watcher.
  static std::unique_ptr<ReportWatcher> Start(KubeClient* client, ReportSink* sink,
                                              ListWatchOptions options = {});
  // Stops and joins (Stop).
  ~ReportWatcher();
  ReportWatcher(const ReportWatcher&) = delete;
  ReportWatcher& operator=(const ReportWatcher&) = delete;

  // Cancels the watch, including a blocked stream or a backoff wait, and joins the thread.
  // A SubmitReport already running finishes first. Idempotent.
  void Stop();

 private:
  class Handler;

  ReportWatcher(KubeClient* client, ReportSink* sink, ListWatchOptions options);

  KubeClient* client_;
  const ListWatchOptions options_;
  std::unique_ptr<Handler> handler_;
  Cancellation stop_;
  std::thread thread_;
};

}  // namespace credledger::kubebridge
